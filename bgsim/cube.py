"""The doubling cube and the money-game conventions, kept out of the move logic.

The game loop asks this module who may double, applies a take, a drop or a beaver, and reads
the options in force.  Nothing here knows about checkers.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .variants import ACEY_DEUCEY, STANDARD, variant_of

CENTRE = "centre"


class Response(str, Enum):
    """An answer to a double."""

    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"  # take and at once redouble, keeping the cube


class RulesError(ValueError):
    """Rule options that are invalid or contradict each other."""


@dataclass(frozen=True)
class Rules:
    """The rule options of RULES.md, all at their defaults (the reference app applies none of
    the money conventions).

    ``automatic_doubles`` is the per-game limit of automatic doubles (0 switches them off).
    ``jacoby``: a gammon or backgammon scores as a single unless a double was accepted in
    that game (automatic doubles do not turn the cube).
    ``variant``: the game played (``bgsim.variants``: standard, nackgammon, hypergammon1..3,
    dutch, acey-deucey).  Acey-deucey has no cube: ``cube`` is switched off for it, and any other
    cube option is an error.  ``double_on_acey_deucey`` (acey-deucey only): the stake doubles
    each time either side rolls 1-2.
    """

    cube: bool = True
    max_cube: int = 64
    jacoby: bool = False
    beaver: bool = False
    automatic_doubles: int = 0
    backgammon_as_gammon: bool = False
    variant: str = STANDARD
    double_on_acey_deucey: bool = False

    def __post_init__(self) -> None:
        if self.variant != STANDARD or self.double_on_acey_deucey is not False:
            self._check_variant()
        for name in ("cube", "jacoby", "beaver", "backgammon_as_gammon"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"rule option {name} is on or off, got {getattr(self, name)!r}")
        for name in ("max_cube", "automatic_doubles"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise RulesError(f"rule option {name} must be a whole number, got {value!r}")
        if self.max_cube < 1 or self.max_cube & (self.max_cube - 1):
            raise RulesError(f"max_cube must be a power of two (1, 2, 4, ...), got {self.max_cube}")
        if self.max_cube > 1 << 30:
            raise RulesError(f"max_cube {self.max_cube} is beyond any sensible cube (at most 2**30)")
        if self.automatic_doubles < 0:
            raise RulesError(f"automatic_doubles is a limit per game, got {self.automatic_doubles}")
        if not self.cube:
            for name in ("jacoby", "beaver"):
                if getattr(self, name):
                    raise RulesError(f"{name} needs the cube, but the cube is switched off")
            if self.automatic_doubles:
                raise RulesError("automatic doubles need the cube, but the cube is switched off")

    def _check_variant(self) -> None:
        try:
            variant = variant_of(self.variant)
        except ValueError as error:
            raise RulesError(str(error)) from None
        if not isinstance(self.double_on_acey_deucey, bool):
            raise RulesError(f"rule option double_on_acey_deucey is on or off, got {self.double_on_acey_deucey!r}")
        if self.double_on_acey_deucey and variant.name != ACEY_DEUCEY:
            raise RulesError(f"double_on_acey_deucey is an acey-deucey option, not one of {variant.name}")
        if not variant.cube:
            for name, default in (("jacoby", False), ("beaver", False), ("automatic_doubles", 0), ("max_cube", 64)):
                if getattr(self, name) != default:
                    raise RulesError(f"{variant.name} has no cube: leave out {name}")
            if self.backgammon_as_gammon:
                raise RulesError(f"{variant.name} has no gammons or backgammons: leave out backgammon_as_gammon")
            object.__setattr__(self, "cube", False)

    def check_for_match(self) -> None:
        """Money conventions have no place in match play (RULES.md: Jacoby never applies), nor
        has acey-deucey, whose loser pays per checker left (no cube to play a match with)."""
        if self.variant == ACEY_DEUCEY:
            raise RulesError("acey-deucey is a money game (the loser pays per checker left, no cube): "
                             "it has no match play")
        for name in ("jacoby", "beaver"):
            if getattr(self, name):
                raise RulesError(f"{name} is a money-game convention and cannot be used in match play")
        if self.automatic_doubles:
            raise RulesError("automatic doubles are a money-game convention and cannot be used in match play")


@dataclass
class Cube:
    """The cube of one game: its value and its owner (``"centre"``, ``"white"`` or ``"black"``)."""

    value: int = 1
    owner: str = CENTRE

    def may_double(self, side: str, rules: Rules, crawford: bool = False) -> bool:
        """Whether ``side`` may offer a double now (on its turn, before rolling)."""
        return (
            rules.cube
            and not crawford
            and self.owner in (CENTRE, side)
            and self.value * 2 <= rules.max_cube
        )

    def may_beaver(self, rules: Rules, match: bool) -> bool:
        return rules.beaver and not match and self.value * 4 <= rules.max_cube

    def automatic_double(self, rules: Rules, done: int) -> bool:
        """Double the centred cube for a tied opening roll, within the per-game limit."""
        if done < rules.automatic_doubles and self.value * 2 <= rules.max_cube:
            self.value *= 2
            return True
        return False

    def take(self, taker: str) -> None:
        self.value *= 2
        self.owner = taker

    def beaver(self, taker: str) -> None:
        self.value *= 4
        self.owner = taker


@dataclass(frozen=True)
class CubeView:
    """What a cube strategy is told when asked to double or to answer a double.

    ``value`` is the cube value before the double; ``centred`` says whether it is in the centre
    (otherwise it belongs to the side that may double).  ``away`` gives the points the doubler
    and its opponent still need in a match, or ``(0, 0)`` in a money game.
    """

    value: int
    centred: bool
    max_cube: int
    beaver_allowed: bool
    jacoby: bool
    match_to: int = 0
    away: tuple[int, int] = (0, 0)
    post_crawford: bool = False


OWN, OPPONENT = "own", "opponent"


@dataclass(frozen=True)
class TurnCube:
    """The cube as it stands for the side about to play, told before each play to a player that
    plays for it (``Player.see_cube``, optional): its ``value``, its ``owner`` from that side
    (``centre``, ``own`` or ``opponent``), whether either side may still turn it in this game
    (``live``: the rules have a cube, no Crawford game, the limit not reached), and whether the
    Jacoby rule holds (a money game under it)."""

    value: int
    owner: str
    live: bool
    jacoby: bool
    match_to: int = 0

    @property
    def code(self) -> int:
        """The cube's code of ``bgsim.variants`` (``CUBE_DEAD`` .. ``CUBE_THEIRS``): the fast
        engine's board byte 30 in a variant's game."""
        from .variants import CUBE_CENTRED, CUBE_CENTRED_JACOBY, CUBE_DEAD, CUBE_OWNED, CUBE_THEIRS

        if not self.live:
            return CUBE_DEAD
        if self.owner == CENTRE:
            return CUBE_CENTRED_JACOBY if self.jacoby else CUBE_CENTRED
        return CUBE_OWNED if self.owner == OWN else CUBE_THEIRS
