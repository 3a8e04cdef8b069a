"""The rulebook's variants (RULES.md, "Variants"), each declared once: what it changes.

=====================  ===========================================================================
``standard``           the game of the rest of RULES.md
``nackgammon``         the standard game from another start (2 on the 24 and 23, 4 on the 13, 3 on
                       the 8, 4 on the 6)
``hypergammon1..3``    1 to 3 checkers a side, from the 24 (and 23, 22); a gammon: the loser has
                       borne off none of its checkers
``dutch``              all 15 start in hand and enter as from the bar, all before anything moves on;
                       no hit until a checker of that side has reached its home board
``acey-deucey``        all 15 start in hand and need not enter first; the 1-2 roll; no cube; the
                       loser pays per checker not borne off
=====================  ===========================================================================

What a variant adds to a position (``bgsim.board.Position``): ``in_hand`` (checkers not yet
entered, per side) and ``cannot_hit`` (Dutch: a side that has not yet reached its home board).
The standard game carries the neutral state (nothing in hand, both may hit).

What the fast engine replicates (``bgsim/fast/variants.py``, its families' ``VARIANT_GAMES``)
---------------------------------------------------------------------------------------------

* **Variant codes** (the rule array's variant entry): the index in :data:`VARIANTS`: standard 0,
  nackgammon 1, hypergammon1 2, hypergammon2 3, hypergammon3 4, dutch 5, acey-deucey 6.
* **Board bytes 26..31** of the int8[32] board (slots 0..25 as ``bgsim/board.py``):
  26 checkers in hand of the side on roll (0..15), 27 checkers in hand of the opponent (0..15,
  stored positive), 28 = 1 while the side on roll may not hit yet (Dutch), 29 = the same for the
  opponent.  30 and 31 (:data:`CUBE_BYTE`, :data:`VARIANT_BYTE`) tell the bots of the turn what
  the reference tells a player that asks (``bgsim.cube.TurnCube``, ``Player.see_cube``): written at
  the start of each turn, before the cube question, and cleared before the board is turned: 30
  the cube for the side on roll (:data:`CUBE_DEAD` .. :data:`CUBE_THEIRS`; 0 where nothing is
  told), 31 the variant's code.  Turning the board swaps 26 with 27 and 28 with 29.  The
  standard game keeps all six at 0, so its boards and their four-word comparisons are unchanged.  A
  checker's hand is "beyond the bar": it enters as from the bar (die d on point 25 - d).
* **Canonical order**: plays sorted by ``(key, slots 0..25, 26, 27, 28, 29)`` where ``key`` is the
  standard Zobrist key of slots 0..25 XOR, for each state byte b in 26..29 whose value v is not 0,
  ``STATE_ZOBRIST[b - 26][v + 15]`` (``bgsim.board``: the four rows drawn after the 26 rows of
  ``ZOBRIST`` from the same SplitMix64 sequence).  A zero byte adds nothing, so no standard key
  changes.  Plays are distinct by all 30 bytes.
* **Generation** (``bgsim.rules``; only the canonical order decides a game, the first-found move
  sequence only gives a play's notation): dice in the order (d1, d2) then (d2, d1) (a double: four
  of d), depth first; at each depth the sources are: the bar if it holds a checker; else, in Dutch,
  the hand if it holds one; else the hand first (acey-deucey, when it holds one) and then points
  24 down to 1.  The maximum-dice rule keeps the sequences of most dice among those really legal
  under the variant (Dutch hits, entering from hand), and with one die of a non-double the larger
  when some sequence plays it.  The first sequence found per distinct result is kept.
* **Dutch**: while byte 28 is set, a point with exactly one opposing checker is closed (as target
  and as intermediate landing point); byte 28 clears as soon as a move lands on points 1..6, so the
  next die of the same turn may hit.  Bar checkers enter before checkers in hand (the two are
  alike, so this only makes the result unique).
* **Bear-off** needs no checker in hand besides every checker home.
* **Acey-deucey's turn** (``bgsim.game``): the opening throws one die each (white's die, then
  black's, from the dice stream, ties thrown again), then the winner rolls two fresh dice for its
  first turn.  After a 1-2 (either order) that played both dice, the player chooses a double
  (``Player.choose_double``), plays it, and if it played four moves rolls again (a new ply, the
  dice stream continues).  ``random`` draws the double as ``1 + below(6)`` from its own stream:
  exactly one draw, taken after the draw (if any) that chose the 1-2 play and before the draw
  (if any) that chooses the double's play.  Evaluation bots draw nothing: they score the best
  play of each double 1..6 with legal plays and take the highest, the lowest double on a tie (1
  when no double can be played).
"""

from __future__ import annotations

from dataclasses import dataclass

STANDARD = "standard"
NACKGAMMON = "nackgammon"
HYPERGAMMON1 = "hypergammon1"
HYPERGAMMON2 = "hypergammon2"
HYPERGAMMON3 = "hypergammon3"
DUTCH = "dutch"
ACEY_DEUCEY = "acey-deucey"

STANDARD_START = ((24, 2), (13, 5), (8, 3), (6, 5))
NACKGAMMON_START = ((24, 2), (23, 2), (13, 4), (8, 3), (6, 4))
HYPERGAMMON_POINTS = (24, 23, 22)
# The fast board's bytes of the turn in a variant's game (the docstring above) and the cube codes
CUBE_BYTE, VARIANT_BYTE = 30, 31
CUBE_UNTOLD, CUBE_DEAD, CUBE_CENTRED, CUBE_CENTRED_JACOBY, CUBE_OWNED, CUBE_THEIRS = range(6)


class VariantError(ValueError):
    """A variant bgsim does not know, or a rule option that does not fit the variant."""


@dataclass(frozen=True)
class Variant:
    """What one variant changes; everything else is the standard game.

    ``start``: (point, count) of each side in its own numbering; the rest are in hand (``hand``
    of them) or, in hypergammon, there are no more.  ``hand_enters_first``: checkers in hand
    enter before anything else moves (Dutch); otherwise they enter when the player likes
    (acey-deucey).  ``hits_after_home``: a side may not hit until one of its checkers has
    reached its home board (Dutch).
    """

    name: str
    checkers: int
    start: tuple[tuple[int, int], ...]
    hand: int = 0
    hand_enters_first: bool = False
    hits_after_home: bool = False
    cube: bool = True
    description: str = ""

    @property
    def code(self) -> int:
        """The variant's number in the fast engine's rule array."""
        return VARIANTS.index(self.name)

    @property
    def moves_differ(self) -> bool:
        """Checkers in hand or a hit restriction: the move rules read the variant state."""
        return self.hand > 0 or self.hits_after_home

    @property
    def acey_deucey(self) -> bool:
        return self.name == ACEY_DEUCEY

    @property
    def start_pips(self) -> int:
        return sum(point * count for point, count in self.start) + 25 * self.hand


_DEFINITIONS = (
    Variant(STANDARD, 15, STANDARD_START, description="the standard game"),
    Variant(NACKGAMMON, 15, NACKGAMMON_START,
            description="the standard game from Nackgammon's start (2 on the 24 and the 23)"),
    *(Variant(f"hypergammon{n}", n, tuple((point, 1) for point in HYPERGAMMON_POINTS[:n]),
              description=f"{n} checker{'s' * (n > 1)} a side from the 24"
                          f"{', 23 and 22' if n == 3 else ' and 23' if n == 2 else ''}")
      for n in (1, 2, 3)),
    Variant(DUTCH, 15, (), hand=15, hand_enters_first=True, hits_after_home=True,
            description="all 15 start in hand and enter first; no hit before reaching home"),
    Variant(ACEY_DEUCEY, 15, (), hand=15, cube=False,
            description="all 15 start in hand, entered at will; 1-2 plays a double and rolls again; "
                        "no cube; the loser pays per checker left"),
)
DEFINITIONS: dict[str, Variant] = {variant.name: variant for variant in _DEFINITIONS}
VARIANTS: tuple[str, ...] = tuple(DEFINITIONS)


def variant_of(name) -> Variant:
    """The :class:`Variant` called ``name``; VariantError (one line) for anything else."""
    if isinstance(name, Variant):
        return name
    found = DEFINITIONS.get(name) if isinstance(name, str) else None
    if found is None:
        raise VariantError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    return found
