"""UBGI, the Universal Backgammon Interface: every line of the protocol, read and written.

The codec of both sides, with no processes in it: the controller (``bots.ubgi``) writes
commands and reads answers, bgsim's engine server writes answers and reads commands, and both
go through the same dataclasses here.  ``docs/UBGI.md`` is the page for people: what bgsim
speaks, its extension and its defaults.  The sources are UBGI v0.2 (bungogood/bgci
``docs/ubgi-v0.2-spec.md``) and v0.1, whose ``setoption``, ``option``, ``go role ...``,
``newsession``, ``setscore``, ``setcube`` and ``setturn`` lines older engines still speak.

**Lines.**  :func:`parse_command` reads a controller -> engine line, :func:`parse_answer` an
engine -> controller line; each returns one of the message classes below, whose ``line()``
writes it back (``parse_command(message.line()) == message`` for every message).  A line that is
not UBGI raises :class:`UbgiError` naming the line; its ``code`` is the v0.2 error code a server
answers with (``bad_command`` for an unknown or malformed line, ``bad_value`` for a value out of
range).

**bgsim's extension** (v0.2 has no answer to a double, and no score or cube but in an XGID):

* ``go take`` -> ``besttake take|pass|beaver``: the answer to a double.  The position sent before
  it is the *doubler's*, on roll before its roll (as eXtreme Gammon writes a double offered: the
  XGID's dice field is ``D``); the engine answers for the doubler's opponent.  ``pass`` refuses the
  double; ``beaver`` takes and at once redoubles, and is legal only where the XGID's money rules
  (or ``game.beaver``) allow beavers.  An engine says it knows the command by listing the key
  :data:`TAKE_KEY` (``key bgsim.take bool true``) in its ``keys``; a controller sends ``go take``
  only then (after ``set bgsim.take true``).
* ``game.*`` keys (:data:`GAME_KEYS`) carry what an XGID carries, for engines that read only
  ``position gnubgid``: a controller sets each one the engine lists in its ``keys``, before
  every decision whose value changed.  "self" is the side on roll in the position sent.

**Positions** are always sent from the side on roll (the doubler for ``go take``), and a
``bestmove`` is written in that side's numbering (24 down to 1, ``bar`` = 25, ``off`` = 0).
:class:`Situation` is what one decision is about (position, dice, cube, score, rules) and
writes the ``position`` lines and ``game.*`` values of it.

**Plays.**  :func:`read_play` turns a ``bestmove`` into the legal play it names, by the
position it produces (``bgsim.rules``: a play *is* its resulting position), so any order or
notation of the same play is accepted: ``24/18 13/12``, ``13/12 24/18``, ``24/18/13``,
``24/13``, ``24/21*/16``, ``8/5(2)``, ``8-5 6-5``, ``8 5 6 5``, ``25/20`` for ``bar/20``,
``6/0`` for ``6/off``, and ``pass`` when no play is legal.  A checker moved more than one die in
one step (``24/13`` with 6-5) may land on either way; a landing that hits a blot the text does
not mark (``*``) is taken only when no other reading is legal, and two legal readings that
differ are refused as ambiguous.  :func:`play_results` gives the positions a text can produce.
"""

from __future__ import annotations

import re
from base64 import b64encode
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import permutations
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

from ..board import BAR, Position, PositionError
from ..cube import Response
from ..rules import Play, check_roll, legal_plays
from ..variants import STANDARD, variant_of
from .xgid import CENTRE, ON_ROLL, OPPONENT, Xgid, XgidError
from .xgid import decode as decode_xgid

PROTOCOL = "0.2"  # what bgsim speaks and answers ``proto`` with
PROTOCOLS = ("0.1", "0.2")  # what a controller accepts; an engine without a ``proto`` line is 0.1
ERROR_CODES = ("bad_command", "bad_value", "bad_state", "unsupported")  # v0.2's four
LEGACY_ERROR_CODES = ("unknown_command", "bad_argument", "missing_context", "unsupported_feature",
                      "search_in_progress")  # v0.1's suggestions, still read
ROLES = ("chequer", "cube", "turn", "take")  # what ``go`` asks; ``take`` is bgsim's extension
TAKE_KEY = "bgsim.take"  # the key an engine lists to say it answers ``go take``
TAKE_ANSWERS = {"take": Response.TAKE, "pass": Response.DROP, "beaver": Response.BEAVER}
KEY_TYPES = ("int", "bool", "enum", "string")
# bgsim's variants as GNU Backgammon's ``game.variant`` names them (others have no gnubgid)
VARIANT_NAMES = {STANDARD: "backgammon", "nackgammon": "nackgammon", "hypergammon3": "hypergammon",
                 "hypergammon1": "hypergammon1", "hypergammon2": "hypergammon2"}
CUBE_OWNERS = {CENTRE: "centre", ON_ROLL: "self", OPPONENT: "opponent"}
# the game.* keys bgsim's controller sets when an engine lists them (docs/UBGI.md)
GAME_KEYS = {
    "game.variant": "the game: backgammon, nackgammon, hypergammon (3 checkers), hypergammon1, hypergammon2",
    "game.match_length": "points to win the match, 0 in a money game",
    "game.score_self": "match score of the side on roll in the position sent",
    "game.score_opponent": "match score of its opponent",
    "game.crawford": "this is the Crawford game",
    "game.cube": "the cube's value",
    "game.cube_owner": "who owns the cube: centre, self (the side on roll) or opponent",
    "game.jacoby": "money game: the Jacoby rule",
    "game.beaver": "money game: beavers allowed",
    "game.max_cube": "the highest cube value allowed",
}

_TOKEN = re.compile(r"\S+")
_INT = re.compile(r"[+-]?\d{1,18}")
_RANGE = re.compile(r"([+-]?\d{1,18}|\*)\.\.([+-]?\d{1,18}|\*)")  # 1..4, 0..* or *..9
_KEY_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")


class UbgiError(ValueError):
    """A line that is not UBGI, or a value out of range; ``code`` is the v0.2 error code a
    server answers it with."""

    def __init__(self, message: str, code: str = "bad_command") -> None:
        super().__init__(message)
        self.code = code


class IllegalPlay(UbgiError):
    """A well-formed ``bestmove`` that names no legal play.  ``reason``: ``illegal`` (no legal
    play produces it), ``wrong_side`` (it is a legal play of the opponent, in the opponent's
    numbering), ``ambiguous`` (two legal plays fit it) or ``pass`` (``pass`` with a legal play,
    or a play where none is legal)."""

    def __init__(self, message: str, reason: str = "illegal") -> None:
        super().__init__(message, "bad_value")
        self.reason = reason


def _words(line) -> list[str]:
    if not isinstance(line, str):
        raise UbgiError(f"a UBGI line is text, got {type(line).__name__}")
    if "\n" in line.rstrip("\r\n"):
        raise UbgiError(f"one UBGI line at a time, got {line!r}")
    return line.split()


def _rest(line: str, words: int) -> str:
    """The text of ``line`` after its first ``words`` words, as written (inner spaces kept)."""
    text = line.strip()
    for _ in range(words):
        text = text[_TOKEN.match(text).end():].lstrip()
    return text


def _integer(text: str, what: str, line: str, low: int | None = None, high: int | None = None) -> int:
    if not _INT.fullmatch(text):
        raise UbgiError(f"{line.strip()!r}: {what} is a whole number, got {text!r}", "bad_value")
    value = int(text)
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f"at least {low}"
        raise UbgiError(f"{line.strip()!r}: {what} is {span}, got {value}", "bad_value")
    return value


def parse_bool(text: str, what: str = "value") -> bool:
    """``true``/``false`` (also ``on``/``off``, ``1``/``0``, as v0.1 engines write them)."""
    lowered = text.lower()
    if lowered in ("true", "on", "1"):
        return True
    if lowered in ("false", "off", "0"):
        return False
    raise UbgiError(f"{what} is true or false, got {text!r}", "bad_value")


def format_bool(value: bool) -> str:
    return "true" if value else "false"


# --- controller -> engine ------------------------------------------------------------------


@dataclass(frozen=True)
class Ubgi:
    """The handshake: the engine answers ``id`` lines, ``proto 0.2``, then ``ubgiok``."""

    def line(self) -> str:
        return "ubgi"


@dataclass(frozen=True)
class IsReady:
    def line(self) -> str:
        return "isready"


@dataclass(frozen=True)
class NewGame:
    def line(self) -> str:
        return "newgame"


@dataclass(frozen=True)
class Keys:
    """List the settings: the engine answers one ``key`` line each (a controller follows it with
    ``isready`` and reads up to ``readyok``: v0.2 gives the list no end of its own)."""

    def line(self) -> str:
        return "keys"


@dataclass(frozen=True)
class Quit:
    def line(self) -> str:
        return "quit"


@dataclass(frozen=True)
class Stop:
    """v0.1's optional interrupt."""

    def line(self) -> str:
        return "stop"


@dataclass(frozen=True)
class Set:
    """``set KEY VALUE``: the value is the rest of the line."""

    key: str
    value: str

    def __post_init__(self) -> None:
        _check_key_name(self.key, f"set {self.key}")
        _check_value_text(self.value, f"set {self.key}")

    def line(self) -> str:
        return f"set {self.key} {self.value}"


@dataclass(frozen=True)
class Get:
    key: str

    def __post_init__(self) -> None:
        _check_key_name(self.key, f"get {self.key}")

    def line(self) -> str:
        return f"get {self.key}"


@dataclass(frozen=True)
class SetOption:
    """v0.1's ``setoption name NAME value VALUE`` (a name may hold spaces)."""

    name: str
    value: str

    def __post_init__(self) -> None:
        if not self.name.strip() or " value " in f" {self.name} " or self.name != self.name.strip():
            raise UbgiError(f"setoption: {self.name!r} is not an option name")
        _check_value_text(self.value, f"setoption name {self.name}")

    def line(self) -> str:
        return f"setoption name {self.name} value {self.value}"


@dataclass(frozen=True)
class PositionCommand:
    """``position gnubgid ID`` or ``position xgid XGID``; ``position`` is what it says, seen from
    the side on roll, and ``xgid`` the whole XGID (cube, score, rules, dice) for the second."""

    kind: str  # "gnubgid" or "xgid"
    text: str

    def __post_init__(self) -> None:
        if self.kind not in ("gnubgid", "xgid"):
            raise UbgiError(f"position {self.kind}: a position is given as gnubgid or xgid", "unsupported")
        self.position  # noqa: B018 - read once, so that a malformed one fails here

    @property
    def position(self) -> Position:
        if self.kind == "xgid":
            return self.xgid.position
        try:
            return Position.from_position_id(self.text)
        except PositionError as error:
            raise UbgiError(f"position gnubgid {self.text}: {error}", "bad_value") from None

    @property
    def xgid(self) -> Xgid:
        if self.kind != "xgid":
            raise UbgiError("a gnubgid position has no XGID", "bad_state")
        try:
            return decode_xgid(self.text)
        except XgidError as error:
            raise UbgiError(f"position xgid {self.text}: {error}", "bad_value") from None

    def line(self) -> str:
        return f"position {self.kind} {self.text}"


@dataclass(frozen=True)
class Dice:
    first: int
    second: int

    def __post_init__(self) -> None:
        for die in (self.first, self.second):
            if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
                raise UbgiError(f"dice: a die is 1 to 6, got {die!r}", "bad_value")

    @property
    def roll(self) -> tuple[int, int]:
        return self.first, self.second

    def line(self) -> str:
        return f"dice {self.first} {self.second}"


@dataclass(frozen=True)
class Go:
    """``go`` / ``go chequer|cube|turn|take`` (v0.2, and bgsim's ``take``) or v0.1's
    ``go role ROLE [movetime MS] [depth N] [nodes N] [trials N]`` (``legacy``)."""

    role: str = "chequer"
    legacy: bool = False
    limits: tuple[tuple[str, int], ...] = ()  # v0.1's budgets, in the order given

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise UbgiError(f"go {self.role}: go asks for one of {', '.join(ROLES)}")
        for name, value in self.limits:
            if name not in GO_LIMITS or isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise UbgiError(f"go: {name} {value!r} is not one of {', '.join(GO_LIMITS)} with a count")
        if self.limits and not self.legacy:
            raise UbgiError("go: budgets (movetime, depth, nodes, trials) are v0.1's go role ... form")

    def line(self) -> str:
        if self.legacy:
            return " ".join([f"go role {self.role}"] + [f"{name} {value}" for name, value in self.limits])
        return f"go {self.role}"


GO_LIMITS = ("movetime", "depth", "nodes", "trials")


@dataclass(frozen=True)
class NewSession:
    """v0.1: ``newsession type money|match [length N] [jacoby on|off] [crawford on|off]``."""

    type: str = "money"
    length: int | None = None
    jacoby: bool | None = None
    crawford: bool | None = None

    def __post_init__(self) -> None:
        if self.type not in ("money", "match"):
            raise UbgiError(f"newsession: type is money or match, got {self.type!r}", "bad_value")
        if self.length is not None and (isinstance(self.length, bool) or not isinstance(self.length, int)
                                        or self.length < 1):
            raise UbgiError(f"newsession: length is at least 1, got {self.length!r}", "bad_value")

    def line(self) -> str:
        words = ["newsession", "type", self.type]
        if self.length is not None:
            words += ["length", str(self.length)]
        for name in ("jacoby", "crawford"):
            value = getattr(self, name)
            if value is not None:
                words += [name, "on" if value else "off"]
        return " ".join(words)


@dataclass(frozen=True)
class SetScore:
    """v0.1: ``setscore P0 P1`` (bgsim's controller: player 0 is the side on roll)."""

    first: int
    second: int

    def __post_init__(self) -> None:
        for score in (self.first, self.second):
            if isinstance(score, bool) or not isinstance(score, int) or score < 0:
                raise UbgiError(f"setscore: a score is at least 0, got {score!r}", "bad_value")

    def line(self) -> str:
        return f"setscore {self.first} {self.second}"


@dataclass(frozen=True)
class SetCube:
    """v0.1: ``setcube value N owner center|p0|p1``."""

    value: int
    owner: str = "center"

    def __post_init__(self) -> None:
        if isinstance(self.value, bool) or not isinstance(self.value, int) or self.value < 1:
            raise UbgiError(f"setcube: the value is at least 1, got {self.value!r}", "bad_value")
        if self.owner not in ("center", "p0", "p1"):
            raise UbgiError(f"setcube: the owner is center, p0 or p1, got {self.owner!r}", "bad_value")

    def line(self) -> str:
        return f"setcube value {self.value} owner {self.owner}"


@dataclass(frozen=True)
class SetTurn:
    """v0.1: ``setturn p0|p1``."""

    player: str = "p0"

    def __post_init__(self) -> None:
        if self.player not in ("p0", "p1"):
            raise UbgiError(f"setturn: p0 or p1, got {self.player!r}", "bad_value")

    def line(self) -> str:
        return f"setturn {self.player}"


COMMANDS = (Ubgi, IsReady, NewGame, Keys, Quit, Stop, Set, Get, SetOption, PositionCommand, Dice, Go,
            NewSession, SetScore, SetCube, SetTurn)


def _check_key_name(name: str, where: str) -> None:
    if not isinstance(name, str) or not _KEY_NAME.fullmatch(name):
        raise UbgiError(f"{where}: {name!r} is not a key name (letters, digits, '.', '_', '-')")


def _check_value_text(value: str, where: str) -> None:
    if not isinstance(value, str) or not value.strip() or "\n" in value or value != value.strip():
        raise UbgiError(f"{where}: a value is text on the same line, got {value!r}")


def parse_command(line: str):
    """The controller -> engine message of ``line``; UbgiError names what is wrong with it."""
    words = _words(line)
    if not words:
        raise UbgiError("an empty line is no command")
    head, count = words[0], len(words)
    bare = {"ubgi": Ubgi, "isready": IsReady, "newgame": NewGame, "keys": Keys, "quit": Quit, "stop": Stop}
    if head in bare:
        if count != 1:
            raise UbgiError(f"{line.strip()!r}: {head} takes nothing after it")
        return bare[head]()
    if head == "set":
        if count < 3:
            raise UbgiError(f"{line.strip()!r}: expected set <key> <value>")
        return Set(words[1], _rest(line, 2))
    if head == "get":
        if count != 2:
            raise UbgiError(f"{line.strip()!r}: expected get <key>")
        return Get(words[1])
    if head == "setoption":
        found = re.fullmatch(r"\s*setoption\s+name\s+(.+?)\s+value\s+(.+?)\s*", line)
        if not found:
            raise UbgiError(f"{line.strip()!r}: expected setoption name <name> value <value>")
        return SetOption(found.group(1), found.group(2))
    if head == "position":
        if count != 3 or words[1] not in ("gnubgid", "xgid"):
            if count >= 2 and words[1] not in ("gnubgid", "xgid"):
                raise UbgiError(f"{line.strip()!r}: a position is gnubgid or xgid", "unsupported")
            raise UbgiError(f"{line.strip()!r}: expected position gnubgid <ID> or position xgid <XGID>")
        return PositionCommand(words[1], words[2])
    if head == "dice":
        if count != 3:
            raise UbgiError(f"{line.strip()!r}: expected dice <d1> <d2>")
        return Dice(_integer(words[1], "a die", line, 1, 6), _integer(words[2], "a die", line, 1, 6))
    if head == "go":
        return _parse_go(line, words)
    if head == "newsession":
        return _parse_newsession(line, words)
    if head == "setscore":
        if count != 3:
            raise UbgiError(f"{line.strip()!r}: expected setscore <p0> <p1>")
        return SetScore(_integer(words[1], "a score", line, 0), _integer(words[2], "a score", line, 0))
    if head == "setcube":
        if count != 5 or words[1] != "value" or words[3] != "owner":
            raise UbgiError(f"{line.strip()!r}: expected setcube value <N> owner <center|p0|p1>")
        return SetCube(_integer(words[2], "the cube value", line, 1), words[4])
    if head == "setturn":
        if count != 2:
            raise UbgiError(f"{line.strip()!r}: expected setturn <p0|p1>")
        return SetTurn(words[1])
    raise UbgiError(f"{line.strip()!r}: unknown command {head!r}")


def _parse_go(line: str, words: list[str]) -> Go:
    if len(words) == 1:
        return Go()
    if words[1] != "role":
        if len(words) != 2:
            raise UbgiError(f"{line.strip()!r}: expected go [chequer|cube|turn|take]")
        if words[1] not in ROLES:
            raise UbgiError(f"{line.strip()!r}: go asks for one of {', '.join(ROLES)}", "unsupported")
        return Go(words[1])
    if len(words) < 3 or words[2] not in ROLES:
        raise UbgiError(f"{line.strip()!r}: expected go role <chequer|cube|turn|take> [budgets]")
    budget = words[3:]
    if len(budget) % 2:
        raise UbgiError(f"{line.strip()!r}: each budget is a name and a number")
    limits = []
    for name, value in zip(budget[::2], budget[1::2]):
        if name not in GO_LIMITS:
            raise UbgiError(f"{line.strip()!r}: {name!r} is not a budget ({', '.join(GO_LIMITS)})")
        limits.append((name, _integer(value, name, line, 0)))
    return Go(words[2], legacy=True, limits=tuple(limits))


def _parse_newsession(line: str, words: list[str]) -> NewSession:
    pairs = words[1:]
    if len(pairs) % 2 or not pairs:
        raise UbgiError(f"{line.strip()!r}: expected newsession type <money|match> [length N] "
                        "[jacoby on|off] [crawford on|off]")
    values: dict[str, str] = {}
    for name, value in zip(pairs[::2], pairs[1::2]):
        if name not in ("type", "length", "jacoby", "crawford") or name in values:
            raise UbgiError(f"{line.strip()!r}: {name!r} is not a newsession field, or is given twice")
        values[name] = value
    if "type" not in values:
        raise UbgiError(f"{line.strip()!r}: newsession needs its type")

    def switch(name):
        if name not in values:
            return None
        if values[name] not in ("on", "off"):
            raise UbgiError(f"{line.strip()!r}: {name} is on or off", "bad_value")
        return values[name] == "on"

    length = _integer(values["length"], "the length", line, 1) if "length" in values else None
    return NewSession(values["type"], length, switch("jacoby"), switch("crawford"))


# --- engine -> controller ------------------------------------------------------------------


@dataclass(frozen=True)
class Id:
    """``id name ...``, ``id author ...`` (and ``id version ...``, as engines write it)."""

    field: str
    value: str

    def __post_init__(self) -> None:
        if not _KEY_NAME.fullmatch(self.field or ""):
            raise UbgiError(f"id {self.field!r}: an id field is a word (name, author, version)")
        _check_value_text(self.value, f"id {self.field}")

    def line(self) -> str:
        return f"id {self.field} {self.value}"


@dataclass(frozen=True)
class Proto:
    version: str

    def __post_init__(self) -> None:
        if not re.fullmatch(r"\d+(\.\d+)*", self.version or ""):
            raise UbgiError(f"proto {self.version!r}: a protocol version is numbers and dots, e.g. 0.2")

    def line(self) -> str:
        return f"proto {self.version}"


@dataclass(frozen=True)
class UbgiOk:
    def line(self) -> str:
        return "ubgiok"


@dataclass(frozen=True)
class ReadyOk:
    def line(self) -> str:
        return "readyok"


@dataclass(frozen=True)
class Key:
    """One setting, as ``keys`` lists it:
    ``key NAME TYPE [RANGE] DEFAULT [!] [description]``.

    ``type`` is int, bool, enum or string; ``minimum``/``maximum`` bound an int (None: no bound,
    written ``*`` or left out), ``choices`` are an enum's; ``default`` is typed (int, bool, str);
    ``minor`` is the ``!`` mark (not part of the engine's identity for ratings)."""

    name: str
    type: str
    default: object
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    minor: bool = False
    description: str = ""
    # an int written with a range token (``1..4`` or ``*``): how it is written, not what it is
    ranged: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        _check_key_name(self.name, f"key {self.name}")
        if self.type not in KEY_TYPES:
            raise UbgiError(f"key {self.name}: type {self.type!r} is not one of {', '.join(KEY_TYPES)}")
        if self.type == "enum" and not self.choices:
            raise UbgiError(f"key {self.name}: an enum lists its choices, a|b|c")
        if self.minimum is not None and self.maximum is not None and self.minimum > self.maximum:
            raise UbgiError(f"key {self.name}: range {self.minimum}..{self.maximum} is empty")
        object.__setattr__(self, "default", self.value_of(self.default) if isinstance(self.default, str)
                           else self.default)
        self.check(self.default)

    def value_of(self, text: str):
        """``text`` (a ``set`` value) as this key's type; UbgiError (bad_value) when it is not one."""
        where = f"{self.name}"
        if not isinstance(text, str):
            return self.check(text)
        if self.type == "int":
            if not _INT.fullmatch(text):
                raise UbgiError(f"{where} is a whole number, got {text!r}", "bad_value")
            return self.check(int(text))
        if self.type == "bool":
            return parse_bool(text, where)
        return self.check(text)

    def check(self, value):
        """``value`` when it is one this key takes, else UbgiError (bad_value)."""
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise UbgiError(f"{self.name} is a whole number, got {value!r}", "bad_value")
            if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
                raise UbgiError(f"{self.name} must_be {self._range_text()}, got {value}", "bad_value")
        elif self.type == "bool":
            if not isinstance(value, bool):
                raise UbgiError(f"{self.name} is true or false, got {value!r}", "bad_value")
        elif self.type == "enum":
            if value not in self.choices:
                raise UbgiError(f"{self.name} is one of {'|'.join(self.choices)}, got {value!r}", "bad_value")
        elif not isinstance(value, str) or not value or any(char.isspace() for char in value):
            raise UbgiError(f"{self.name} is one word of text, got {value!r}", "bad_value")
        return value

    def format(self, value) -> str:
        """``value`` as a ``set`` line writes it."""
        value = self.check(value)
        return format_bool(value) if self.type == "bool" else str(value)

    def _range_text(self) -> str:
        low = "*" if self.minimum is None else str(self.minimum)
        high = "*" if self.maximum is None else str(self.maximum)
        return "*" if self.minimum is None and self.maximum is None else f"{low}..{high}"

    def line(self) -> str:
        words = ["key", self.name, self.type]
        if self.type == "int" and (self.ranged or self.minimum is not None or self.maximum is not None):
            words.append(self._range_text())
        elif self.type == "enum":
            words.append("|".join(self.choices))
        elif self.type == "string":
            words.append("*")
        words.append(self.format(self.default))
        if self.minor:
            words.append("!")
        if self.description:
            words.append(self.description)
        return " ".join(words)


@dataclass(frozen=True)
class Option:
    """v0.1's ``option name NAME type spin|check|string|combo|button [default X] [min N] [max N]
    [var V]...`` (a name may hold spaces)."""

    name: str
    type: str
    default: str | None = None
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.type not in ("spin", "check", "string", "combo", "button"):
            raise UbgiError(f"option {self.name}: type {self.type!r} is not spin, check, string, combo or button")

    def line(self) -> str:
        words = ["option", "name", self.name, "type", self.type]
        if self.default is not None:
            words += ["default", self.default]
        if self.minimum is not None:
            words += ["min", str(self.minimum)]
        if self.maximum is not None:
            words += ["max", str(self.maximum)]
        for choice in self.choices:
            words += ["var", choice]
        return " ".join(words)

    def value_of(self, value) -> str:
        """``value`` as ``setoption`` writes it, checked against what the option says."""
        if self.type == "check":
            if isinstance(value, str):
                value = parse_bool(value, self.name)
            if not isinstance(value, bool):
                raise UbgiError(f"{self.name} is true or false, got {value!r}", "bad_value")
            return format_bool(value)
        if self.type == "spin":
            if isinstance(value, str):
                if not _INT.fullmatch(value):
                    raise UbgiError(f"{self.name} is a whole number, got {value!r}", "bad_value")
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, int):
                raise UbgiError(f"{self.name} is a whole number, got {value!r}", "bad_value")
            if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
                raise UbgiError(f"{self.name} is {self.minimum}..{self.maximum}, got {value}", "bad_value")
            return str(value)
        text = format_bool(value) if isinstance(value, bool) else str(value)
        if self.type == "combo" and self.choices and text not in self.choices:
            raise UbgiError(f"{self.name} is one of {'|'.join(self.choices)}, got {text!r}", "bad_value")
        return text


@dataclass(frozen=True)
class Value:
    """``value KEY VALUE``, the answer to ``get``."""

    key: str
    value: str

    def __post_init__(self) -> None:
        _check_key_name(self.key, f"value {self.key}")
        _check_value_text(self.value, f"value {self.key}")

    def line(self) -> str:
        return f"value {self.key} {self.value}"


@dataclass(frozen=True)
class Segment:
    """One step of a ``bestmove``: a checker from ``source`` (25 the bar) through ``via`` to
    ``target`` (0 off); ``hits`` are the points of the path written with ``*``.  ``via`` holds
    the points a chain writes (``24/18/13``: via 18)."""

    source: int
    target: int
    via: tuple[int, ...] = ()
    hits: frozenset[int] = frozenset()


@dataclass(frozen=True)
class BestMove:
    """``bestmove PAYLOAD``: ``pass``, or the checker moves (see the module docstring);
    ``segments`` are the moves read, one per checker step, counts ``(N)`` written out."""

    text: str
    segments: tuple[Segment, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "segments", parse_moves(self.text))  # a malformed one fails here

    @property
    def is_pass(self) -> bool:
        return not self.segments

    def line(self) -> str:
        return f"bestmove {self.text}"


@dataclass(frozen=True)
class BestMoveId:
    """v0.1's ``bestmoveid ID``: the GNU Backgammon position ID after the play."""

    position_id: str

    def __post_init__(self) -> None:
        try:
            Position.from_position_id(self.position_id)
        except PositionError as error:
            raise UbgiError(f"bestmoveid {self.position_id}: {error}", "bad_value") from None

    def line(self) -> str:
        return f"bestmoveid {self.position_id}"


@dataclass(frozen=True)
class BestCube:
    double: bool

    def line(self) -> str:
        return "bestcube " + ("double" if self.double else "nodouble")


@dataclass(frozen=True)
class BestTurn:
    """``bestturn cube=double|nodouble move=PAYLOAD`` (the move may be left out after a double)."""

    double: bool
    move: BestMove | None = None

    def line(self) -> str:
        text = "bestturn cube=" + ("double" if self.double else "nodouble")
        return text + (f" move={self.move.text}" if self.move is not None else "")


@dataclass(frozen=True)
class BestTake:
    """bgsim's extension: ``besttake take|pass|beaver``, the answer to ``go take``."""

    response: Response

    def __post_init__(self) -> None:
        object.__setattr__(self, "response", Response(self.response))

    @property
    def word(self) -> str:
        return next(word for word, response in TAKE_ANSWERS.items() if response is self.response)

    def line(self) -> str:
        return f"besttake {self.word}"


@dataclass(frozen=True)
class Info:
    """``info KEY VALUE ...``: optional, never an answer; ``text`` is everything after ``info``."""

    text: str

    def __post_init__(self) -> None:
        _check_value_text(self.text, "info")

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(self.text.split())

    def line(self) -> str:
        return f"info {self.text}"


@dataclass(frozen=True)
class Error:
    """``error CODE [detail]``: ``code`` is one of :data:`ERROR_CODES` (v0.1's are read too)."""

    code: str
    detail: str = ""

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z_]+", self.code or ""):
            raise UbgiError(f"error {self.code!r}: an error code is a word like bad_command")
        if self.detail and "\n" in self.detail:
            raise UbgiError("error: the detail is on the same line")

    @property
    def standard(self) -> bool:
        return self.code in ERROR_CODES

    @property
    def unsupported(self) -> bool:
        """The engine says it does not implement what was asked (v0.2 ``unsupported``, v0.1
        ``unsupported_feature``)."""
        return self.code in ("unsupported", "unsupported_feature")

    def line(self) -> str:
        return f"error {self.code}" + (f" {self.detail}" if self.detail else "")


ANSWERS = (Id, Proto, UbgiOk, ReadyOk, Key, Option, Value, BestMove, BestMoveId, BestCube, BestTurn,
           BestTake, Info, Error)
FINAL_ANSWERS = (BestMove, BestMoveId, BestCube, BestTurn, BestTake)  # each ends a ``go``


def error_line(code: str, detail: str = "") -> str:
    """The ``error`` line of one of v0.2's four codes (a server's answer to a bad line)."""
    if code not in ERROR_CODES:
        raise ValueError(f"UBGI v0.2 has four error codes ({', '.join(ERROR_CODES)}), not {code!r}")
    return Error(code, " ".join(detail.split())).line()


def parse_answer(line: str):
    """The engine -> controller message of ``line``; UbgiError names what is wrong with it."""
    words = _words(line)
    if not words:
        raise UbgiError("an empty line is no answer")
    head, count = words[0], len(words)
    if head in ("ubgiok", "readyok"):
        if count != 1:
            raise UbgiError(f"{line.strip()!r}: {head} takes nothing after it")
        return UbgiOk() if head == "ubgiok" else ReadyOk()
    if head == "id":
        if count < 3:
            raise UbgiError(f"{line.strip()!r}: expected id <name|author|version> <text>")
        return Id(words[1], _rest(line, 2))
    if head == "proto":
        if count != 2:
            raise UbgiError(f"{line.strip()!r}: expected proto <version>")
        return Proto(words[1])
    if head == "key":
        return parse_key(line)
    if head == "option":
        return _parse_option(line)
    if head == "value":
        if count < 3:
            raise UbgiError(f"{line.strip()!r}: expected value <key> <value>")
        return Value(words[1], _rest(line, 2))
    if head == "bestmove":
        if count < 2:
            raise UbgiError(f"{line.strip()!r}: bestmove needs its play, or pass")
        return BestMove(_rest(line, 1))
    if head == "bestmoveid":
        if count != 2:
            raise UbgiError(f"{line.strip()!r}: expected bestmoveid <GNU position ID>")
        return BestMoveId(words[1])
    if head == "bestcube":
        if count != 2 or words[1] not in ("double", "nodouble"):
            raise UbgiError(f"{line.strip()!r}: expected bestcube double or bestcube nodouble")
        return BestCube(words[1] == "double")
    if head == "bestturn":
        found = re.fullmatch(r"\s*bestturn\s+cube=(double|nodouble)(?:\s+move=(.+?))?\s*", line)
        if not found:
            raise UbgiError(f"{line.strip()!r}: expected bestturn cube=<double|nodouble> move=<play>")
        return BestTurn(found.group(1) == "double", BestMove(found.group(2)) if found.group(2) else None)
    if head == "besttake":
        if count != 2 or words[1] not in TAKE_ANSWERS:
            raise UbgiError(f"{line.strip()!r}: expected besttake take, besttake pass or besttake beaver")
        return BestTake(TAKE_ANSWERS[words[1]])
    if head == "info":
        if count < 2:
            raise UbgiError(f"{line.strip()!r}: info needs something to say")
        return Info(_rest(line, 1))
    if head == "error":
        if count < 2:
            raise UbgiError(f"{line.strip()!r}: expected error <code> [detail]")
        return Error(words[1], _rest(line, 2))
    raise UbgiError(f"{line.strip()!r} is not a UBGI answer")


def parse_key(line: str) -> Key:
    """A ``key`` line (v0.2's key discovery)."""
    words = _words(line)
    where = line.strip()
    if len(words) < 4 or words[0] != "key":
        raise UbgiError(f"{where!r}: expected key <name> <type> [range] <default> [!] [description]")
    name, kind = words[1], words[2]
    if kind not in KEY_TYPES:
        raise UbgiError(f"{where!r}: type {kind!r} is not one of {', '.join(KEY_TYPES)}")
    at = 3
    minimum = maximum = None
    choices: tuple[str, ...] = ()
    ranged = False
    if kind == "int" and (words[at] == "*" or _RANGE.fullmatch(words[at])):
        if len(words) < 5:
            raise UbgiError(f"{where!r}: an int key with a range needs its default after it")
        found = _RANGE.fullmatch(words[at])
        if found:
            minimum, maximum = (None if bound == "*" else int(bound) for bound in found.groups())
        ranged = True
        at += 1
    elif kind == "enum":
        if len(words) < 5:
            raise UbgiError(f"{where!r}: expected key <name> enum <a|b|...> <default>")
        choices = tuple(words[at].split("|"))
        if not all(choices):
            raise UbgiError(f"{where!r}: an enum's choices are words joined by |")
        at += 1
    elif kind == "string" and words[at] == "*":
        if len(words) < 5:
            raise UbgiError(f"{where!r}: expected key <name> string * <default>")
        at += 1
    default = words[at]
    at += 1
    minor = at < len(words) and words[at] == "!"
    if minor:
        at += 1
    if "!" in words[at:at + 1]:
        raise UbgiError(f"{where!r}: ! stands alone right after the default")
    description = _rest(line, at) if at < len(words) else ""
    try:
        return Key(name, kind, default, minimum, maximum, choices, minor, description, ranged)
    except UbgiError as error:
        raise UbgiError(f"{where!r}: {error}", "bad_value") from None


def _parse_option(line: str) -> Option:
    found = re.fullmatch(r"\s*option\s+name\s+(.+?)\s+type\s+(\S+)(.*)", line.rstrip("\r\n"))
    if not found:
        raise UbgiError(f"{line.strip()!r}: expected option name <name> type <type> ...")
    name, kind, tail = found.group(1), found.group(2), found.group(3).split()
    if len(tail) % 2:
        raise UbgiError(f"{line.strip()!r}: each of default, min, max and var has a value")
    default = minimum = maximum = None
    choices = []
    for word, value in zip(tail[::2], tail[1::2]):
        if word == "default":
            default = value
        elif word in ("min", "max"):
            number = _integer(value, word, line)
            minimum, maximum = (number, maximum) if word == "min" else (minimum, number)
        elif word == "var":
            choices.append(value)
        else:
            raise UbgiError(f"{line.strip()!r}: {word!r} is not default, min, max or var")
    return Option(name, kind, default, minimum, maximum, tuple(choices))


# --- plays ---------------------------------------------------------------------------------

_POINT_WORDS = {"bar": BAR, "off": 0}
_STEP = re.compile(r"(bar|off|\d{1,2})(\*?)")
_COUNT = re.compile(r"(.*?)\((\d)\)")
MAX_SEGMENTS = 8  # no legal play moves more than four checkers four steps; this is well beyond


def _point(text: str, payload: str) -> int:
    if text in _POINT_WORDS:
        return _POINT_WORDS[text]
    value = int(text)
    if not 0 <= value <= 25:
        raise UbgiError(f"bestmove {payload}: point {value} is not 0 (off) to 25 (the bar)")
    return value


def parse_moves(payload: str) -> tuple[Segment, ...]:
    """The checker steps of a ``bestmove`` payload (empty for ``pass``); UbgiError names what
    is malformed.  Points are the mover's: 25 or ``bar`` the bar, 0 or ``off`` off."""
    if not isinstance(payload, str):
        raise UbgiError(f"a play is text, got {type(payload).__name__}")
    return _parse_moves(payload)


@lru_cache(maxsize=4096)  # an engine writes the same few hundred plays again and again
def _parse_moves(payload: str) -> tuple[Segment, ...]:
    words = payload.lower().split()
    if not words:
        raise UbgiError("bestmove needs its play, or pass")
    if words == ["pass"]:
        return ()
    if all(re.fullmatch(r"\d{1,2}", word) for word in words):  # the draft's "8 5 6 5"
        if len(words) % 2:
            raise UbgiError(f"bestmove {payload}: points written bare come in from-to pairs")
        words = [f"{source}/{target}" for source, target in zip(words[::2], words[1::2])]
    segments: list[Segment] = []
    for word in words:
        count = 1
        counted = _COUNT.fullmatch(word)
        if counted:
            word, count = counted.group(1), int(counted.group(2))
            if not 1 <= count <= 4:
                raise UbgiError(f"bestmove {payload}: ({count}) is not a count of 1 to 4 checkers")
        steps = re.split(r"[/-]", word)
        if len(steps) < 2:
            raise UbgiError(f"bestmove {payload}: {word!r} is not a move like 24/18")
        points, hits = [], set()
        for step in steps:
            found = _STEP.fullmatch(step)
            if not found:
                raise UbgiError(f"bestmove {payload}: {step!r} in {word!r} is not a point, bar or off")
            points.append(_point(found.group(1), payload))
            if found.group(2):
                hits.add(points[-1])
        for earlier, later in zip(points, points[1:]):
            if later >= earlier:
                raise UbgiError(f"bestmove {payload}: {word!r} moves from {earlier} to {later}, not towards home")
        if points[0] == 0:
            raise UbgiError(f"bestmove {payload}: {word!r} starts off the board")
        if BAR in points[1:]:
            raise UbgiError(f"bestmove {payload}: {word!r} moves onto the bar")
        if 0 in points[:-1]:
            raise UbgiError(f"bestmove {payload}: {word!r} moves on after bearing off")
        if 0 in hits or (hits and points[0] in hits):
            raise UbgiError(f"bestmove {payload}: {word!r} marks a hit where none can be")
        segment = Segment(points[0], points[-1], tuple(points[1:-1]), frozenset(hits))
        segments.extend([segment] * count)
        if len(segments) > MAX_SEGMENTS:
            raise UbgiError(f"bestmove {payload}: more checker moves than any roll plays")
    return tuple(segments)


@lru_cache(maxsize=64)
def _die_orders(dice: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every distinct order of one or more of ``dice`` (at most four: a, b, ab, ba or d .. dddd)."""
    return tuple(sorted({order for size in range(1, len(dice) + 1) for order in permutations(dice, size)}))


@lru_cache(maxsize=4096)
def _routes(segment: Segment, dice: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The landing points (after the source, the target last) a segment may take with these
    dice: each leg of its path is one die or several in a row."""
    points = (segment.source, *segment.via, segment.target)
    routes: list[tuple[int, ...]] = [()]
    for start, end in zip(points, points[1:]):
        legs: set[tuple[int, ...]] = set()
        for order in _die_orders(dice):
            landings, at = [], start
            for die in order[:-1]:
                at -= die
                if at <= end:
                    break  # a landing on the way must lie between the leg's ends
                landings.append(at)
            else:
                at -= order[-1]
                if at == end or (end == 0 and at < 0):
                    landings.append(max(at, 0))
                    legs.add(tuple(landings))
        routes = [route + leg for route in routes for leg in sorted(legs)]
    return tuple(routes)


def _apply(board: list[int], source: int, landings: tuple[int, ...], written: frozenset[int] | set[int]):
    """Move one checker along ``landings``; the board after it and the blots it hit at landings
    the text does not write (``written``: the points of its path), or None where it cannot go
    (no checker there, a point the opponent holds)."""
    if board[source] <= 0:
        return None
    board = list(board)
    board[source] -= 1
    unmarked = 0
    for index, point in enumerate(landings):
        if point == 0:
            return board, unmarked  # borne off
        if board[point] <= -2:
            return None
        if board[point] == -1:
            board[point] = 0
            board[0] -= 1
            if point not in written:
                unmarked += 1  # hit on the way, where the text shows no landing
        if index == len(landings) - 1:
            board[point] += 1
    return board, unmarked


def play_results(position: Position, roll, segments: Iterable[Segment]) -> dict[Position, int]:
    """Every position ``segments`` can produce from ``position`` with ``roll``, each with the
    fewest blots it hits on the way at points the text does not write (0: the plain reading).
    The segments are applied in any order that finds their checkers; no rule of legality is
    checked here (:func:`read_play` compares with the legal plays)."""
    first, second = check_roll(roll)
    if position.has_state:
        raise UbgiError(f"position {position.position_string}: UBGI carries no checkers in hand", "unsupported")
    found = _result_boards(position.board, (first, second), tuple(segments))
    return {Position(board, position.variant): unmarked for board, unmarked in found.items()}


def _result_boards(start: tuple[int, ...], roll: tuple[int, int], segments: tuple[Segment, ...]) -> dict:
    """:func:`play_results` on bare boards (26-tuples), as the referee compares them."""
    dice = (roll[0],) * 4 if roll[0] == roll[1] else roll
    options = [_routes(segment, dice) for segment in segments]
    written = [{*segment.via, segment.target} for segment in segments]
    found: dict[tuple[int, ...], int] = {}

    def walk(board: list[int], left: list[int], unmarked: int) -> None:
        if not left:
            result = tuple(board)
            if unmarked < found.get(result, MAX_SEGMENTS + 1):
                found[result] = unmarked
            return
        for place, index in enumerate(left):
            segment = segments[index]
            if board[segment.source] <= 0:
                continue  # its checker arrives with a later segment
            rest = left[:place] + left[place + 1:]
            for landings in options[index]:
                after = _apply(board, segment.source, landings, written[index])
                if after is not None:
                    walk(after[0], rest, unmarked + after[1])
            return  # results do not depend on the order; only a checker's arrival does

    walk(list(start), list(range(len(segments))), 0)
    return found


def read_play(position: Position, roll, answer, plays: Sequence[Play] | None = None) -> Play | None:
    """The legal play a ``bestmove`` (a :class:`BestMove`, :class:`BestMoveId` or its payload
    text) names for ``roll`` from ``position``; None for a correct ``pass``.  ``plays``: the legal
    plays, when already found.  :class:`IllegalPlay` says why it names none; UbgiError when the
    text is malformed."""
    if plays is None:
        plays = legal_plays(position, roll)
    if isinstance(answer, str):
        answer = BestMove(answer)
    if isinstance(answer, BestMoveId):
        return _read_play_id(position, roll, answer, plays)
    if not isinstance(answer, BestMove):
        raise UbgiError(f"a play is a bestmove, got {type(answer).__name__}")
    segments = answer.segments
    dice = f"{roll[0]}-{roll[1]}"
    if not segments:
        if plays:
            raise IllegalPlay(f"pass with {dice}, where {len(plays)} plays are legal", "pass")
        return None
    if not plays:
        raise IllegalPlay(f"{answer.text} with {dice}, where no play is legal: the answer is pass", "pass")
    if position.has_state:
        raise UbgiError(f"position {position.position_string}: UBGI carries no checkers in hand", "unsupported")
    roll = (roll[0], roll[1])
    by_result = {play.result.board: play for play in plays}
    results = _result_boards(position.board, roll, segments)
    for most in (0, None):
        fitting = {by_result[result] for result, unmarked in results.items()
                   if result in by_result and (most is None or unmarked <= most)}
        if len(fitting) == 1:
            return fitting.pop()
        if len(fitting) > 1:
            names = " or ".join(sorted(play.notation for play in fitting))
            raise IllegalPlay(f"{answer.text} with {dice} fits {names}: write the landings", "ambiguous")
    turned = position.turned()
    theirs = {play.result.board for play in legal_plays(turned, roll)}
    if theirs and set(_result_boards(turned.board, roll, segments)) & theirs:
        raise IllegalPlay(f"{answer.text} with {dice} is a play of the opponent, in its numbering", "wrong_side")
    raise IllegalPlay(f"{answer.text} is not a legal play of {dice} "
                      f"(legal: {', '.join(play.notation for play in plays[:6])}"
                      f"{', ...' if len(plays) > 6 else ''})")


def _read_play_id(position, roll, answer: BestMoveId, plays) -> Play | None:
    after = Position.from_position_id(answer.position_id)
    if not plays:
        if after in (position, position.turned()):
            return None
        raise IllegalPlay(f"bestmoveid {answer.position_id}: no play is legal with {roll[0]}-{roll[1]}", "pass")
    for play in plays:  # the result from the mover, or turned to the opponent on roll
        if play.result == after:
            return play
    for play in plays:
        if play.result.turned() == after:
            return play
    raise IllegalPlay(f"bestmoveid {answer.position_id} is no legal play's result with {roll[0]}-{roll[1]}")


def bestmove_text(play: Play | None) -> str:
    """The ``bestmove`` payload of ``play`` (bgsim's notation: ``24/18 13/12``, ``bar/22``,
    ``6/off``, ``8/5*``, ``24/18(2)``), ``pass`` for None (no legal play)."""
    return "pass" if play is None else play.notation


# --- what one decision is about ------------------------------------------------------------

# A controller writes a position ID and an XGID for every decision: these two write exactly what
# ``bgsim.position_id.encode`` and ``bgsim.interchange.xgid.encode`` write (the tests hold them to
# it on random positions), with integer arithmetic instead of lists of bits.
_SLOT_CHARS = {count: ("-" if count == 0 else chr(ord("A") + count - 1) if count > 0 else chr(ord("a") - count - 1))
               for count in range(-15, 16)}


@lru_cache(maxsize=64)  # a turn asks the cube question and then the play of one board
def fast_position_id(board) -> str:
    """The GNU Backgammon position ID of a 26-slot board (``bgsim.position_id.encode``; a
    tuple, as ``Position.board`` is)."""
    value = shift = 0
    for point in range(1, 25):  # the opponent's points from its side, then its bar
        count = -board[25 - point] if board[25 - point] < 0 else 0
        value |= ((1 << count) - 1) << shift
        shift += count + 1
    value |= ((1 << -board[0]) - 1) << shift
    shift += -board[0] + 1
    for point in range(1, 25):  # the side on roll's points, then its bar
        count = board[point] if board[point] > 0 else 0
        value |= ((1 << count) - 1) << shift
        shift += count + 1
    value |= ((1 << board[25]) - 1) << shift
    return b64encode(value.to_bytes(10, "little")).decode("ascii")[:14]


@lru_cache(maxsize=64)
def _xgid_board(board) -> str:
    return "".join(map(_SLOT_CHARS.__getitem__, board))


def _fast_xgid(situation) -> str:
    board = _xgid_board(situation.position.board)
    owner = {CENTRE: "0", ON_ROLL: "1", OPPONENT: "-1"}[situation.cube_owner]
    dice = "D" if situation.offered else f"{situation.dice[0]}{situation.dice[1]}"
    if situation.match_to:
        rules = int(situation.crawford)
    else:
        rules = int(situation.jacoby) + 2 * int(situation.beaver)
    limit = min(situation.max_cube, 1 << 15)
    return (f"XGID={board}:{situation.cube_value.bit_length() - 1}:{owner}:1:{dice}:{situation.score[0]}:"
            f"{situation.score[1]}:{rules}:{situation.match_to}:{limit.bit_length() - 1}")


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)



def _check_context(value, cube_owner, dice, offered, match_to, score, crawford, limit) -> None:
    """:meth:`Situation._check` of one context (UbgiError names the problem)."""
    problem = None
    if not _whole(value) or value < 1 or value & (value - 1) or value > 1 << 15:
        problem = f"a cube value is a power of two from 1 to 32768, got {value!r}"
    elif cube_owner not in CUBE_OWNERS:
        problem = f"the cube owner is one of {', '.join(CUBE_OWNERS)}, got {cube_owner!r}"
    elif tuple(dice) != (0, 0) and not all(_whole(die) and 1 <= die <= 6 for die in dice):
        problem = f"the dice are two numbers from 1 to 6, or (0, 0) before the roll, got {dice!r}"
    elif offered and tuple(dice) != (0, 0):
        problem = "a double is offered before the roll: the dice cannot show a roll then"
    elif not _whole(match_to) or match_to < 0 or not all(_whole(points) and points >= 0 for points in score):
        problem = f"a match length and scores are whole numbers of at least 0, got {match_to!r}, {score!r}"
    elif match_to and max(score) >= match_to:
        problem = f"score {score[0]}-{score[1]} has already won a match to {match_to}"
    elif crawford and (not match_to or max(score) != match_to - 1):
        problem = "a Crawford game needs a match with a side one point away"
    elif not _whole(limit) or limit < 1 or limit & (limit - 1):
        problem = f"a cube limit is a power of two, got {limit!r}"
    if problem:
        raise UbgiError(problem, "bad_value")
    from ..match_id import check_state  # the rules of cube and score, as an XGID's are checked

    try:
        check_state(value, cube_owner == CENTRE, match_to, tuple(score), crawford,
                    offered=bool(offered), doubler_owns_no_cube=bool(offered) and cube_owner == OPPONENT,
                    cube_limit=min(limit, 1 << 15), money_score=False)
    except ValueError as error:
        raise UbgiError(str(error), "bad_value") from None


@lru_cache(maxsize=4096, typed=True)  # typed: True is no cube value, though True == 1
def _checked_context(value, cube_owner, die1, die2, offered, match_to, score1, score2, crawford, limit) -> None:
    _check_context(value, cube_owner, (die1, die2), offered, match_to, (score1, score2), crawford, limit)


@lru_cache(maxsize=1024, typed=True)  # typed: True and 1 are equal keys but print differently
def _game_values(variant, match_to, score, crawford, cube_value, cube_owner, jacoby, beaver, max_cube):
    return MappingProxyType({
        "game.variant": VARIANT_NAMES[variant],
        "game.match_length": str(match_to),
        "game.score_self": str(score[0]),
        "game.score_opponent": str(score[1]),
        "game.crawford": format_bool(crawford),
        "game.cube": str(cube_value),
        "game.cube_owner": CUBE_OWNERS[cube_owner],
        "game.jacoby": format_bool(jacoby and not match_to),
        "game.beaver": format_bool(beaver and not match_to),
        "game.max_cube": str(max_cube),
    })


@dataclass(frozen=True)
class Situation:
    """A decision's position and its context, from the side on roll (the doubler for ``go
    take``): what the ``position`` lines, the ``game.*`` keys and v0.1's session lines say.

    ``cube_owner`` is ``"centre"``, ``"on roll"`` or ``"opponent"`` (``bgsim.interchange.xgid``);
    ``score`` is (side on roll, opponent); ``offered``: a double is on the table (``go take``).
    """

    position: Position = field(default_factory=Position.start)
    dice: tuple[int, int] = (0, 0)
    cube_value: int = 1
    cube_owner: str = CENTRE
    offered: bool = False
    match_to: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    max_cube: int = 64

    def __post_init__(self) -> None:
        if not isinstance(self.position, Position):
            raise UbgiError(f"a situation's position is a Position, got {type(self.position).__name__}")
        if self.position.has_state or self.position.variant not in VARIANT_NAMES:
            raise UbgiError(f"{self.position.variant}: a GNU Backgammon position ID holds no checkers in hand "
                            f"(UBGI plays {', '.join(VARIANT_NAMES)})", "unsupported")
        self._check()

    @property
    def variant(self) -> str:
        return self.position.variant

    def xgid(self) -> str:
        """The XGID: the side on roll at the bottom; ``D`` in the dice field for a double offered
        (made when first asked: an engine that takes no XGID is never sent one)."""
        made = self.__dict__.get("_xgid")
        if made is None:
            made = _fast_xgid(self)
            object.__setattr__(self, "_xgid", made)
        return made

    def _check(self) -> None:
        """What an XGID holds, checked as ``bgsim.interchange.xgid`` checks it (each context once:
        a controller asks the same few again and again)."""
        dice, score = tuple(self.dice), tuple(self.score)
        if len(dice) == 2 and len(score) == 2:
            try:
                _checked_context(self.cube_value, self.cube_owner, *dice, self.offered, self.match_to, *score,
                                 self.crawford, self.max_cube)
                return
            except TypeError:  # an unhashable value: checked below, to say what is wrong with it
                pass
        _check_context(self.cube_value, self.cube_owner, dice, self.offered, self.match_to, score,
                       self.crawford, self.max_cube)


    def _encode(self) -> str:
        """The XGID as ``bgsim.interchange.xgid`` writes it (what :meth:`xgid` must equal)."""
        try:
            return Xgid(position=self.position, cube_value=self.cube_value, cube_owner=self.cube_owner,
                        dice=self.dice, offered=int(self.offered), score=self.score, match_to=self.match_to,
                        crawford=self.crawford, jacoby=self.jacoby and not self.match_to,
                        beaver=self.beaver and not self.match_to,
                        cube_limit=min(self.max_cube, 1 << 15)).text
        except XgidError as error:
            raise UbgiError(str(error), "bad_value") from None

    def gnubgid(self) -> str:
        return fast_position_id(self.position.board)

    def position_lines(self, xgid: bool = False) -> list[str]:
        """``position gnubgid ID`` (always: v0.2 requires it), then ``position xgid XGID`` when
        the engine reads it."""
        lines = [f"position gnubgid {self.gnubgid()}"]  # what PositionCommand writes, unchecked: made here
        if xgid:
            lines.append(f"position xgid {self.xgid()}")
        return lines

    def game_values(self) -> Mapping[str, str]:
        """Every ``game.*`` key of :data:`GAME_KEYS` with its value here, as ``set`` writes it
        (read-only and shared: the values of one context are made once, and a controller that
        sees the same mapping again knows nothing changed)."""
        return _game_values(self.variant, self.match_to, tuple(self.score), self.crawford, self.cube_value,
                            self.cube_owner, self.jacoby, self.beaver, self.max_cube)

    def session_lines(self) -> list[str]:
        """v0.1's context lines for this decision (player 0 is the side on roll)."""
        money = not self.match_to
        session = NewSession("money" if money else "match", None if money else self.match_to,
                             self.jacoby if money else None, None if money else self.crawford)
        owner = {CENTRE: "center", ON_ROLL: "p0", OPPONENT: "p1"}[self.cube_owner]
        return [session.line(), SetScore(*self.score).line(), SetCube(self.cube_value, owner).line(),
                SetTurn("p0").line()]

    @classmethod
    def from_xgid(cls, text: str, variant: str = STANDARD, max_cube: int | None = None) -> "Situation":
        """The situation an XGID describes (a server's reading of ``position xgid``)."""
        try:
            state = decode_xgid(text)
        except XgidError as error:
            raise UbgiError(f"position xgid {text}: {error}", "bad_value") from None
        if state.offered > 1:
            raise UbgiError(f"position xgid {text}: a beaver or raccoon on the table is no decision UBGI asks",
                            "unsupported")
        position = state.position if variant == STANDARD else Position(state.position.board, variant_of(variant).name)
        return cls(position, state.dice, state.cube_value, state.cube_owner, bool(state.offered), state.match_to,
                   state.score, state.crawford, state.jacoby, state.beaver,
                   state.cube_limit if max_cube is None else max_cube)

    def with_game_values(self, values: Mapping[str, str]) -> "Situation":
        """This situation with the ``game.*`` values a controller set (a server's reading of
        them; unknown keys are an error)."""
        unknown = sorted(set(values) - set(GAME_KEYS))
        if unknown:
            raise UbgiError(f"{', '.join(unknown)}: not one of bgsim's game keys", "unsupported")
        changes: dict[str, object] = {}
        owners = {word: owner for owner, word in CUBE_OWNERS.items()}
        variants = {word: name for name, word in VARIANT_NAMES.items()}
        for name, text in values.items():
            if name == "game.variant":
                if text not in variants:
                    raise UbgiError(f"game.variant is one of {'|'.join(variants)}, got {text!r}", "bad_value")
                changes["position"] = Position(self.position.board, variants[text])
            elif name == "game.cube_owner":
                if text not in owners:
                    raise UbgiError(f"game.cube_owner is centre, self or opponent, got {text!r}", "bad_value")
                changes["cube_owner"] = owners[text]
            elif name in ("game.crawford", "game.jacoby", "game.beaver"):
                changes[name[5:]] = parse_bool(text, name)
            else:
                number = _integer(text, name, f"set {name} {text}", 0)
                target = {"game.match_length": "match_to", "game.cube": "cube_value",
                          "game.max_cube": "max_cube"}.get(name)
                if target:
                    changes[target] = number
                else:
                    score = list(changes.get("score", self.score))
                    score[0 if name == "game.score_self" else 1] = number
                    changes["score"] = tuple(score)
        fields = {name: getattr(self, name) for name in self.__dataclass_fields__}
        fields.update(changes)
        return Situation(**fields)

    def game_keys(self) -> list[Key]:
        """The ``key`` lines of bgsim's ``game.*`` keys at this situation's values (what a server
        lists in answer to ``keys``, all minor: the game is no part of the engine's identity)."""
        values = self.game_values()
        kinds = {"game.crawford": "bool", "game.jacoby": "bool", "game.beaver": "bool"}
        keys = []
        for name, description in GAME_KEYS.items():
            if name == "game.variant":
                keys.append(Key(name, "enum", values[name], choices=tuple(VARIANT_NAMES.values()),
                                minor=True, description=description))
            elif name == "game.cube_owner":
                keys.append(Key(name, "enum", values[name], choices=tuple(CUBE_OWNERS.values()),
                                minor=True, description=description))
            elif name in kinds:
                keys.append(Key(name, "bool", values[name], minor=True, description=description))
            else:
                keys.append(Key(name, "int", values[name], minimum=0, minor=True, description=description))
        return keys


__all__ = [
    "ANSWERS", "BestCube", "BestMove", "BestMoveId", "BestTake", "BestTurn", "COMMANDS", "Dice",
    "ERROR_CODES", "Error", "FINAL_ANSWERS", "GAME_KEYS", "Get", "Go", "Id", "IllegalPlay", "Info",
    "IsReady", "Key", "Keys", "NewGame", "NewSession", "Option", "PROTOCOL", "PROTOCOLS",
    "PositionCommand", "Proto", "Quit", "ROLES", "ReadyOk", "Segment", "Set", "SetCube", "SetOption",
    "SetScore", "SetTurn", "Situation", "Stop", "TAKE_ANSWERS", "TAKE_KEY", "Ubgi", "UbgiError",
    "UbgiOk", "Value", "bestmove_text", "error_line", "format_bool", "parse_answer", "parse_bool",
    "parse_command", "parse_key", "parse_moves", "play_results", "read_play",
]
