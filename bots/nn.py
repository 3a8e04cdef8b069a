"""``nn``: a neural-network checker player trained by bgsim from GNU Backgammon's evaluations.

The network and its integer arithmetic are described in ``bgsim/fast/nn.py`` (its scales:
``bgsim/net_format.py``, read by both halves); this module is
the reference: the same integers computed with plain numpy int64, so the two engines choose
the same plays.  The shipped net is ``bots/data/nn.npz`` (how it was made:
``bots/data/README.md``); ``nn(weights=FILE)`` plays another one, written by ``bgsim train``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from bgsim.board import Position, is_race
from bgsim.net_format import CONTACT, CONTACT_MAX, COUNTS, LIMIT, MAX_HIDDEN, ONE, OUTPUTS, SHIFT, UNIT

from .checker import BEAROFF, CheckerBot, best_double
from .features import contact_inputs, turned
from . import match_cube
from .cube import SCORE_AWARE, CubeBot
from .gnubg_bots import janowski_equities, janowski_offer, janowski_response
from .params import Param, SpecError, parse_float, parse_int

DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "data" / "nn.npz"
# the net `nn` played until nn-v2 (no contact inputs): bot `nn-v1`, for the results it played
V1_WEIGHTS = DEFAULT_WEIGHTS.with_name("nn-v1.npz")
ARRAYS = ("tables", "bias", "race", "weights2", "bias2", "sigmoid", "contact")
# a file of an older bgsim has no contact rows: its net reads none (zero rows)
OPTIONAL = ("contact",)


class NetError(SpecError):
    """A net file that is missing, unreadable, or not a net of the shape the kernels expect."""


class Net:
    """The integer arrays of one network (see ``bgsim/fast/nn.py``), checked on load."""

    def __init__(self, tables, bias, race, weights2, bias2, sigmoid, contact=None, note: str = "",
                 source: str = "") -> None:
        self.tables = np.ascontiguousarray(tables, dtype=np.int32)
        self.bias = np.ascontiguousarray(bias, dtype=np.int32)
        self.race = np.ascontiguousarray(race, dtype=np.int32)
        self.weights2 = np.ascontiguousarray(weights2, dtype=np.int32)
        self.bias2 = np.ascontiguousarray(bias2, dtype=np.int64)
        self.sigmoid = np.ascontiguousarray(sigmoid, dtype=np.int64)
        if contact is None:
            contact = np.zeros((CONTACT, self.bias.shape[0] if self.bias.ndim == 1 else 0), dtype=np.int32)
        self.contact = np.ascontiguousarray(contact, dtype=np.int32)
        self.note = note
        self.source = source
        check_net(self, source or "the net")

    def wide(self) -> tuple[np.ndarray, np.ndarray]:
        """int64 copies of the tables and output weights for the reference's numpy sums."""
        if not hasattr(self, "_wide"):
            self._wide = (self.tables.astype(np.int64), self.weights2.astype(np.int64),
                          self.contact.astype(np.int64))
        return self._wide

    @property
    def hidden(self) -> int:
        return int(self.bias.shape[0])

    def arrays(self) -> tuple[np.ndarray, ...]:
        """(tables, bias, race, weights2, bias2, sigmoid, contact): the kernels' arguments."""
        return self.tables, self.bias, self.race, self.weights2, self.bias2, self.sigmoid, self.contact

    @property
    def reads_contact(self) -> bool:
        """Whether the net has contact inputs (nonzero contact rows; ``nn-v1`` has none)."""
        if not hasattr(self, "_reads_contact"):
            self._reads_contact = bool(np.any(self.contact))
        return self._reads_contact

    def named_arrays(self) -> dict[str, np.ndarray]:
        """The arrays by the names of ``bgsim.layouts.NN`` (the same objects every call, so
        the engine stores a net once even when a seat's checker and cube bots both hand it)."""
        return dict(zip(ARRAYS, self.arrays()))

    def digest(self) -> str:
        """sha256 of the arrays (the net that plays, whatever file it came from)."""
        if not hasattr(self, "_digest"):
            import hashlib

            hasher = hashlib.sha256()
            # zero contact rows leave the digest of a net from before them as it was recorded
            for array in self.arrays()[:-1] + ((self.contact,) if self.reads_contact else ()):
                hasher.update(array.tobytes())
            self._digest = hasher.hexdigest()
        return self._digest

    def identity(self) -> dict:
        """What a results folder records of the net that played it (``run.json``'s ``nets``)."""
        source = Path(self.source).name if self.source else "(in memory)"
        return {"file": source, "hidden": self.hidden, "contact": self.reads_contact, "sha256": self.digest(),
                "note": self.note[:200]}

    def save(self, path) -> None:
        """Write the net to ``path`` (``.npz`` is added when missing, as numpy does), whole or not
        at all: into a temporary file beside it, then renamed, so that a run killed mid-write
        never leaves a truncated net under the real name.  (bots cannot import
        experiments.running.files, whose writers do the same.)"""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        temporary = path.with_name("." + path.name + ".tmp")
        try:
            with open(temporary, "wb") as handle:
                np.savez_compressed(handle, tables=self.tables, bias=self.bias, race=self.race,
                                    weights2=self.weights2, bias2=self.bias2, sigmoid=self.sigmoid,
                                    contact=self.contact, note=np.array(self.note))
            os.replace(temporary, path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise


def check_net(net: Net, where: str) -> None:
    """Raise NetError unless the arrays fit together and no first-layer sum can pass int32."""
    hidden = net.bias.shape
    if len(hidden) != 1 or hidden[0] < 1:
        raise NetError(f"{where}: bias has shape {net.bias.shape}, expected (hidden,)")
    size = hidden[0]
    expected = {
        "tables": (26, COUNTS, size), "race": (size,), "weights2": (OUTPUTS, size),
        "bias2": (OUTPUTS,), "sigmoid": (2 * LIMIT + 1,), "contact": (CONTACT, size),
    }
    for name, shape in expected.items():
        actual = getattr(net, name).shape
        if actual != shape:
            raise NetError(f"{where}: {name} has shape {actual}, expected {shape} "
                           f"(a net with {size} hidden units)")
    if np.any(net.tables[:, 15, :] != 0):
        raise NetError(f"{where}: the rows of empty slots (count 0) must be zero")
    if np.any(net.sigmoid < 0) or np.any(net.sigmoid > UNIT) or np.any(np.diff(net.sigmoid) < 0):
        raise NetError(f"{where}: the sigmoid table must rise from 0 to {UNIT}")
    # The largest first-layer sum in size: the kernel adds int32 rows, so keep it below 2**31.
    bound = (np.abs(net.bias.astype(np.int64)) + np.abs(net.race.astype(np.int64))
             + np.abs(net.tables.astype(np.int64)).max(axis=1).sum(axis=0) * 2
             + np.array(CONTACT_MAX, dtype=np.int64) @ np.abs(net.contact.astype(np.int64)))
    if bound.max() >= 2**31:
        raise NetError(f"{where}: weights too large for exact int32 sums")
    if size > MAX_HIDDEN:
        raise NetError(f"{where}: {size} hidden units, more than the kernel's {MAX_HIDDEN}")
    if np.abs(net.weights2.astype(np.int64)).max() * ONE * size + np.abs(net.bias2).max() >= 2**62:
        raise NetError(f"{where}: output weights too large for exact int64 sums")


def load_net(path) -> Net:
    """Read a net file written by ``Net.save`` (``bgsim train``); NetError names any problem."""
    path = Path(path)
    if not path.is_file():
        raise NetError(f"net file {str(path)!r} not found")
    try:
        with np.load(path, allow_pickle=False) as data:
            missing = [name for name in ARRAYS if name not in data.files and name not in OPTIONAL]
            if missing:
                raise NetError(f"net file {str(path)!r} lacks {', '.join(missing)}")
            arrays = {name: data[name] for name in ARRAYS if name in data.files}
            note = str(data["note"]) if "note" in data.files else ""
    except NetError:
        raise
    except Exception as error:  # a truncated or foreign file: say which and why, in one line
        raise NetError(f"net file {str(path)!r} is not a readable .npz net ({error})") from None
    for name, array in arrays.items():
        if not np.issubdtype(array.dtype, np.integer):
            raise NetError(f"net file {str(path)!r}: {name} holds {array.dtype}, not integers")
    return Net(**arrays, note=note, source=str(path))


@lru_cache(maxsize=8)
def _cached_net(path: str) -> Net:
    return load_net(path)


def shipped_net() -> Net:
    return _cached_net(str(DEFAULT_WEIGHTS))


def _net_of(weights: str, default: Path = DEFAULT_WEIGHTS) -> Net:
    return _cached_net(str(Path(weights).resolve() if weights else default))


def evaluate(net: Net, position) -> tuple[float, float, float, float, float]:
    """The net's five cubeless probabilities of the side on roll as floats (exact: k / 65536)."""
    board = position.board if isinstance(position, Position) else Position(tuple(position)).board
    return tuple(float(p) / UNIT for p in integer_probabilities(net, board))


# --- the reference evaluation: numpy int64 ------------------------------------------------


def _consistent(probabilities: np.ndarray) -> np.ndarray:
    win = probabilities[0]
    probabilities[1] = min(probabilities[1], win)
    probabilities[2] = min(probabilities[2], probabilities[1])
    probabilities[3] = min(probabilities[3], UNIT - win)
    probabilities[4] = min(probabilities[4], probabilities[3])
    return probabilities


def _finished(board, won: bool) -> np.ndarray:
    """Integer probabilities of a finished game, ``board`` seen from the side on roll."""
    if won:
        loser_on = -sum(count for count in board if count < 0)
        in_home = any(board[slot] < 0 for slot in range(0, 7))
    else:
        loser_on = sum(count for count in board if count > 0)
        in_home = any(board[slot] > 0 for slot in range(19, 26))
    gammon = UNIT if loser_on == 15 else 0
    backgammon = UNIT if loser_on == 15 and in_home else 0
    if won:
        return np.array([UNIT, gammon, backgammon, 0, 0], dtype=np.int64)
    return np.array([0, 0, 0, gammon, backgammon], dtype=np.int64)


def integer_probabilities(net: Net, board) -> np.ndarray:
    """The five probabilities of the side on roll in units of 1/65536 (int64), as the kernel."""
    own = sum(count for count in board if count > 0)
    opponent = -sum(count for count in board if count < 0)
    if own == 0 or opponent == 0:
        return _finished(board, won=own == 0)
    tables, weights2, contact = net.wide()
    counts = np.asarray(board, dtype=np.int64)
    hidden = net.bias + tables[_SLOTS, counts + 15].sum(axis=0)
    if net.reads_contact:  # zero rows add nothing: the plain reference need not count them
        hidden += np.array(contact_inputs(board), dtype=np.int64) @ contact
    if is_race(board):
        hidden += net.race
    np.maximum(hidden, 0, out=hidden)
    np.minimum(hidden, ONE, out=hidden)
    logits = net.bias2 + weights2 @ hidden
    probabilities = np.array(
        [net.sigmoid[min(max(int(logit) >> SHIFT, -LIMIT), LIMIT) + LIMIT] for logit in logits],
        dtype=np.int64)
    return _consistent(probabilities)


_SLOTS = np.arange(26)


def equity_of(probabilities) -> int:
    """Cubeless equity in units of 1/65536 (the kernel's ``_equity``)."""
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = (int(p) for p in probabilities)
    return 2 * win - UNIT + win_gammon - lose_gammon + win_backgammon - lose_backgammon


def play_value(net: Net, board_after) -> int:
    """The mover's equity (1/65536) after a play: minus the opponent's, the board turned."""
    return -equity_of(integer_probabilities(net, turned(board_after)))


def look_ahead(net: Net, board_after) -> int:
    """The 1-ply value of a play, 36 times the mover's equity (1/65536): the sum over the
    opponent's 36 rolls of the mover's 0-ply equity after the reply the 0-ply net would choose
    (no legal reply: the position as it is).  The opponent moves by the standard game's rules
    on the 26 slots, whatever the variant (so the fast kernel, ``bgsim.fast.nn.choose_ahead``,
    generates the same replies)."""
    from bgsim.rules import legal_plays

    if not any(count > 0 for count in board_after):  # our last checker is off: no reply
        return 36 * play_value(net, board_after)
    opponent = Position(turned(board_after))
    total = 0
    for die1 in range(1, 7):
        for die2 in range(1, die1 + 1):
            weight = 1 if die1 == die2 else 2
            replies = legal_plays(opponent, (die1, die2))
            if replies:
                reply = _best_by_value(net, replies)
                after = turned(reply.result.board)
            else:
                after = tuple(board_after)
            total += weight * equity_of(integer_probabilities(net, after))
    return total


def _best_by_value(net: Net, plays):
    """The 0-ply ``nn`` play: the highest :func:`play_value`, ties to the earliest (canonical)."""
    best = plays[0]
    best_value = play_value(net, best.result.board)
    for play in plays[1:]:
        value = play_value(net, play.result.board)
        if value > best_value:  # strictly greater: ties keep the earlier play
            best, best_value = play, value
    return best


class NNChecker(CheckerBot):
    """The play whose result has the highest cubeless equity by the net; ties: canonical order.

    ``plies=1`` searches one ply deeper (GNU Backgammon's 1-ply, wildbg's and bgsage's first
    search level): the 0-ply filter keeps up to ``keep`` plays within ``margin`` points of the
    best 0-ply equity (in 0-ply order; GNU Backgammon's default filter for its 1-ply checker
    play keeps 8 plays within 0.16), and each kept play is judged by :func:`look_ahead`; the
    highest wins, ties going to the canonical order.

    fast_name ``"nn"``, ``"nn-ahead"`` at ``plies=1`` (a layout of its own, so that a 0-ply run
    never compiles the search); the fast engine gets the net's arrays (``Net.arrays()``).
    """

    name = "nn"
    fast_name = "nn"
    # the spec that plays nn-ahead in validate's cases: keep=2, the search at its cheapest in the
    # reference engine (the filter's other settings: tests/test_nn.py)
    fast_alternatives = {"nn-ahead": "plies=1,keep=2"}
    description = "neural net distilled from GNU Backgammon (bgsim train), integer arithmetic"
    variant_note = "trained on the standard game; in a variant it sees checkers in hand as on the bar"
    PARAMS = (
        Param("weights", str, "", "net file written by bgsim train (default: the shipped net)"),
        BEAROFF,
        Param("plies", parse_int, 0, "search depth: 0 judges each play's result, 1 looks at every "
              "reply to the plays the filter keeps", minimum=0, maximum=1),
        Param("keep", parse_int, 8, "1-ply filter: the most plays searched (best 0-ply first)",
              minimum=1, maximum=32),
        Param("margin", parse_float, 0.16, "1-ply filter: plays more than this many points below "
              "the best 0-ply equity are not searched", minimum=0.0, maximum=6.0),
    )

    default_weights = DEFAULT_WEIGHTS  # the net file when ``weights`` is not given

    def check(self) -> None:
        self.net = _net_of(self.weights, self.default_weights)
        self.fast_name = "nn-ahead" if self.plies else "nn"

    @classmethod
    def playing(cls, net: Net) -> "NNChecker":
        """This bot (default parameters) playing ``net`` held in memory instead of a file:
        ``bgsim train`` measures each round's net this way.  Its spec still reads ``nn``."""
        bot = cls.__new__(cls)
        for param in cls.PARAMS:
            setattr(bot, param.key, param.default)
        bot.net = net
        return bot

    def evaluate(self, position: Position) -> tuple[float, float, float, float, float]:
        """Cubeless (win, win gammon, win backgammon, lose gammon, lose backgammon) of the side
        on roll; gammons include backgammons."""
        return evaluate(self.net, position)

    def fast_params(self):
        if self.plies == 0:
            return {"hidden": float(self.net.hidden)}
        return {"hidden": float(self.net.hidden), "keep": float(self.keep),
                "margin": float(round(self.margin * UNIT))}

    def fast_arrays(self):
        return self.net.named_arrays()

    def pick(self, position, roll, plays, random):
        if self.plies == 0:
            return _best_by_value(self.net, plays)
        values = [play_value(self.net, play.result.board) for play in plays]
        ranked = sorted(range(len(plays)), key=lambda index: (-values[index], index))
        top = values[ranked[0]]
        margin = round(self.margin * UNIT)  # the kernel's integer margin (fast_params)
        kept = sorted(index for index in ranked[:self.keep] if values[index] >= top - margin)
        if len(kept) == 1:
            return plays[kept[0]]
        best, best_total = None, None
        for index in kept:  # canonical order: a strictly greater sum replaces the best
            total = look_ahead(self.net, plays[index].result.board)
            if best is None or total > best_total:
                best, best_total = index, total
        return plays[best]

    def choose_double(self, position, options, random):
        return best_double(options, lambda play: play_value(self.net, play.result.board))


class NNCube(CubeBot):
    """Money cube decisions from the net: its cubeless probabilities of the doubler's position
    turned into cubeful equities by Janowski's formulas (:func:`bots.gnubg_bots.janowski_equities`)
    with cube life index ``x`` (0.68: GNU Backgammon's contact value, from Janowski's work).
    Per unit of the current cube: no double = the centred (or owned) equity, double/take =
    2 x the equity with the opponent owning the cube, double/pass = +1;

    * double when ``min(double/take, double/pass) > no double``;
    * take when ``double/take <= 1``; beaver (where allowed) when ``double/take < 0``.

    In a match (``score_aware=true``, the default): first the rules the score decides alone
    (``bots.match_cube.forced_offer``), then the same decisions with Janowski's formulas in
    match-winning-chance units at the score (``bots.match_cube.match_equities``: gammons valued
    by the published match equity table).  Beyond the table's 25 points, and with
    ``score_aware=false``, the money judgement.  fast_name ``"nn"``.
    """

    name = "nn"
    fast_name = "nn"
    description = "Janowski cubeful money equity from the nn net's probabilities"
    variant_note = "trained on the standard game; in a variant it sees checkers in hand as on the bar"
    PARAMS = (
        Param("x", parse_float, 0.68, "cube life index (0 dead cube .. 1 fully live)", minimum=0.0, maximum=1.0),
        Param("weights", str, "", "net file written by bgsim train (default: the shipped net)"),
        SCORE_AWARE,
    )

    def _at_score(self, cube) -> bool:
        return bool(self.score_aware and cube.match_to and match_cube.in_table(*cube.away))

    default_weights = DEFAULT_WEIGHTS

    def check(self) -> None:
        self.net = _net_of(self.weights, self.default_weights)

    def _equities(self, position: Position, cube):
        return janowski_equities(evaluate(self.net, position), self.x, cube.jacoby and cube.centred)

    def wants_double(self, position, cube) -> bool:
        if self._at_score(cube):
            no_double, double_take, double_pass = match_cube.match_equities(
                evaluate(self.net, position), self.x, cube)
            return min(double_take, double_pass) > no_double
        return janowski_offer(self._equities(position, cube), cube)

    def respond(self, position, cube):
        from bgsim.cube import Response

        if self._at_score(cube):
            _, double_take, double_pass = match_cube.match_equities(evaluate(self.net, position), self.x, cube)
            return Response.DROP if double_take > double_pass else Response.TAKE
        return janowski_response(self._equities(position, cube), cube)

    def fast_params(self):
        return {"hidden": float(self.net.hidden), "x": float(self.x)}

    def fast_arrays(self):
        return self.net.named_arrays()


def nets_of(player) -> dict:
    """The ``Net.identity`` of each net a player's bots play (checker and cube), by role."""
    found = {}
    for role in ("checker", "cube"):
        net = getattr(getattr(player, role, None), "net", None)
        if isinstance(net, Net):
            found[role] = net.identity()
    return found


def _v1_params(params):
    """The same parameters, with ``weights``'s help naming nn-v1's file as the default."""
    return tuple(Param("weights", str, "", "net file written by bgsim train (default: nn-v1's net)")
                 if param.key == "weights" else param for param in params)


class NNv1Checker(NNChecker):
    """:class:`NNChecker` playing the net ``nn`` played until nn-v2 (``bots/data/nn-v1.npz``:
    0-ply labels, no contact inputs), so that the results it played can be played again."""

    name = "nn-v1"
    default_weights = V1_WEIGHTS
    description = "the nn checker bot with the net it had until nn-v2 (no contact inputs)"
    PARAMS = _v1_params(NNChecker.PARAMS)


class NNv1Cube(NNCube):
    """:class:`NNCube` judging with nn-v1's net (see :class:`NNv1Checker`)."""

    name = "nn-v1"
    default_weights = V1_WEIGHTS
    description = "Janowski cubeful money equity from nn-v1's net"
    PARAMS = _v1_params(NNCube.PARAMS)


BOTS = (NNChecker, NNCube, NNv1Checker, NNv1Cube)
