"""Match equity tables (METs): the chance of winning the match from a score.

Scores are given as *points away*: ``equity(2, 5)`` is the match-winning chance of the side that
needs 2 more points against a side that needs 5, before the cube is turned in a game that has
not started.  Two tables:

* ``kazaross-xg2``: Neil Kazaross's table (2011): eXtreme Gammon rollouts to 9 points, GNU
  Backgammon rollouts to 15, extended to 25 points by projecting take points.  Its numbers are
  data, shipped unchanged as GNU Backgammon's transcription (``bgsim/data/met/Kazaross-XG2.xml``,
  by Michael Petch, with its copyright notice) and read from there.
* ``derived``: computed by bgsim from one number, the share of won games that are gammons, by the
  recursion of :func:`derive` (take points in a continuous game, as Zadeh's and
  Rockwell-Kazaross's methods do).

Conventions used everywhere in bgsim: a score of 0 or less away has won (1.0), a score where the
*opponent* is 0 or less away has lost (0.0); 1-away against 1-away is 0.5.  Entries at 1-away
against n-away (n > 1) are the Crawford game's; :func:`post_crawford` gives the games after it.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data" / "met"
PUBLISHED = "kazaross-xg2"
DERIVED = "derived"
TABLES = (PUBLISHED, DERIVED)
DEFAULT_GAMMON_RATE = 0.26  # share of won games that are gammons in expert play (about 26-28%)


@dataclass(frozen=True)
class MatchEquityTable:
    """``pre[a-1, b-1]``: the chance that the side ``a`` away wins against a side ``b`` away
    (pre-Crawford; row 1 is the Crawford game).  ``post[n-1]``: the chance of the side ``n`` away
    after the Crawford game against a leader 1 away."""

    name: str
    source: str
    pre: np.ndarray
    post: np.ndarray

    @property
    def length(self) -> int:
        return self.pre.shape[0]

    def equity(self, away: int, opponent_away: int, post_crawford: bool = False) -> float:
        """Match-winning chance of the side ``away`` points from winning.

        ``post_crawford``: the Crawford game has been played (only meaningful when one side is
        1 away).  Past the table's length a ValueError names the limit.
        """
        away, opponent_away = _away(away), _away(opponent_away)
        if away <= 0:
            return 1.0
        if opponent_away <= 0:
            return 0.0
        for value in (away, opponent_away):
            if value > self.length:
                raise ValueError(f"the {self.name} table goes to {self.length} away, got {value}")
        if post_crawford and (away == 1) != (opponent_away == 1):
            if away == 1:
                return 1.0 - float(self.post[opponent_away - 1])
            return float(self.post[away - 1])
        return float(self.pre[away - 1, opponent_away - 1])


def _away(value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"a score away is a whole number, got {value!r}")
    return int(value)


def published() -> MatchEquityTable:
    """The Kazaross-XG2 table, 25 points, as GNU Backgammon ships it."""
    return _read_gnubg_met(DATA / "Kazaross-XG2.xml", PUBLISHED)


KERNEL_LENGTH = 25  # the score-aware cube kernels' table (bgsim/fast/match_cube.py MET_LENGTH)


@lru_cache(maxsize=None)
def kernel_arrays() -> dict[str, np.ndarray]:
    """The published table as the score-aware cube bots read it (``met_pre``, ``met_post`` of
    ``bgsim.layouts.SCORE_AWARE_SWITCH``): the SAME read-only array objects every call, so the
    fast engine stores them once however many seats hand them over."""
    table = published()
    if table.length != KERNEL_LENGTH:
        raise RuntimeError(f"the published match equity table has {table.length} points, not {KERNEL_LENGTH}")
    pre = np.ascontiguousarray(table.pre, dtype=np.float64)
    post = np.ascontiguousarray(table.post, dtype=np.float64)
    pre.setflags(write=False)
    post.setflags(write=False)
    return {"met_pre": pre, "met_post": post}


@lru_cache(maxsize=None)
def _read_gnubg_met(path: Path, name: str) -> MatchEquityTable:
    root = ElementTree.parse(path).getroot()
    description = root.findtext("info/description", default="").strip()

    def rows(tag: str) -> list[list[float]]:
        table = root.find(tag)
        if table is None:
            raise ValueError(f"{path}: no <{tag}>")
        return [[float(cell.text) for cell in row.findall("me")] for row in table.findall("row")]

    pre = np.array(rows("pre-crawford-table"), dtype=np.float64)
    post = np.array(rows("post-crawford-table")[0], dtype=np.float64)
    if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or post.shape != (pre.shape[0],):
        raise ValueError(f"{path}: the tables are not square and of one length")
    return MatchEquityTable(name, f"{description} ({path.name}, GNU Backgammon's transcription)",
                            pre, post)


def derive(gammon_rate: float = DEFAULT_GAMMON_RATE, length: int = 25) -> MatchEquityTable:
    """A table from a gammon rate alone, by the take-point recursion of a continuous game.

    The model (Zadeh 1977; the method behind Rockwell-Kazaross's tables): a game's winning
    chance ``p`` moves continuously, so a double comes exactly at the opponent's take point
    and the match-winning chance is linear in ``p`` between the two points where the cube
    changes hands.  Gammons happen only at the end of a game: a win is a gammon with
    probability ``gammon_rate`` (backgammons counted as gammons).  For a score (a, b) away and
    cube value c, each side's take point follows from the take point one cube higher, up to
    the cube that decides the match for either side (dead: no redouble).  Post-Crawford the
    trailer doubles at once, and the leader drops whenever the drop is worth more (the free
    drop).  The Crawford game is played without the cube.  Even games: the chance at the start
    of a game is the line's value at p = 1/2.
    """
    if isinstance(gammon_rate, bool) or not isinstance(gammon_rate, (int, float)) \
            or not math.isfinite(gammon_rate) or not 0.0 <= gammon_rate < 1.0:
        raise ValueError(f"a gammon rate is a share from 0 to below 1, got {gammon_rate!r}")
    if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= 64:
        raise ValueError(f"a table length is 1..64 points, got {length!r}")
    g = float(gammon_rate)

    @lru_cache(maxsize=None)
    def post(n: int) -> float:
        """Trailer n away, leader 1 away, after the Crawford game."""
        if n <= 0:
            return 1.0
        if n == 1:
            return 0.5
        take = 0.5 * ((1.0 - g) * post(n - 2) + g * post(n - 4))
        drop = post(n - 1)
        return min(take, drop)  # the leader chooses

    @lru_cache(maxsize=None)
    def match(a: int, b: int) -> float:
        """Side a away against side b away, at the start of a game (pre-Crawford)."""
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if a == 1 and b == 1:
            return 0.5
        if a == 1:  # the Crawford game: no cube; afterwards the leader stays 1 away
            return 0.5 + 0.5 * (1.0 - ((1.0 - g) * post(b - 1) + g * post(b - 2)))
        if b == 1:
            return 1.0 - match(b, a)
        high_a, high_b = take_points(a, b, 1)
        # centred cube at 1: B cashes where A would drop, A cashes where B would drop
        low_value, high_value = match(a, b - 1), match(a - 1, b)
        return low_value + (0.5 - high_b) / (high_a - high_b) * (high_value - low_value)

    def win(a: int, b: int, cube: int) -> float:
        return (1.0 - g) * match(a - cube, b) + g * match(a - 2 * cube, b)

    def loss(a: int, b: int, cube: int) -> float:
        return (1.0 - g) * match(a, b - cube) + g * match(a, b - 2 * cube)

    @lru_cache(maxsize=None)
    def take_points(a: int, b: int, cube: int) -> tuple[float, float]:
        """(p above which B drops A's double to 2*cube, p below which A drops B's double),
        in A's game-winning chance p.  A double that cannot gain (the doubler already wins the
        match with any win at this cube) is never made: 1.0 and 0.0."""
        doubled = 2 * cube
        if cube >= a:
            b_drops = 1.0
        else:
            # after B takes, B owns the doubled cube: A's chance is linear from the point
            # where B redoubles and A drops (value: match(a, b - doubled)) up to p = 1
            _, a_drops_next = take_points(a, b, doubled) if doubled < b else (1.0, 0.0)
            start, start_value = a_drops_next, match(a, b - doubled)
            end_value = win(a, b, doubled)
            cash = match(a - cube, b)
            b_drops = _crossing(start, start_value, 1.0, end_value, cash)
        if cube >= b:
            a_drops = 0.0
        else:
            b_drops_next, _ = take_points(a, b, doubled) if doubled < a else (1.0, 0.0)
            end, end_value = b_drops_next, match(a - doubled, b)
            start_value = loss(a, b, doubled)
            cash = match(a, b - cube)
            a_drops = _crossing(0.0, start_value, end, end_value, cash)
        return b_drops, a_drops

    pre = np.array([[match(a, b) for b in range(1, length + 1)] for a in range(1, length + 1)])
    post_row = np.array([post(n) for n in range(1, length + 1)])
    return MatchEquityTable(DERIVED, f"derived by bgsim from a gammon rate of {g:g}",
                            pre, post_row)


def _crossing(x0: float, y0: float, x1: float, y1: float, level: float) -> float:
    """Where the line from (x0, y0) to (x1, y1) reaches ``level``, clipped to [x0, x1]."""
    if y1 == y0:
        return x0 if level <= y0 else x1
    x = x0 + (level - y0) / (y1 - y0) * (x1 - x0)
    return min(max(x, x0), x1)


def table(name: str = PUBLISHED, gammon_rate: float = DEFAULT_GAMMON_RATE) -> MatchEquityTable:
    """A table by name: ``kazaross-xg2`` (published) or ``derived`` (from ``gammon_rate``)."""
    if name == PUBLISHED:
        return published()
    if name == DERIVED:
        return derive(gammon_rate)
    raise ValueError(f"unknown match equity table {name!r} (known: {', '.join(TABLES)})")


__all__ = ["MatchEquityTable", "derive", "published", "table", "TABLES"]
