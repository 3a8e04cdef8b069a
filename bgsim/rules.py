"""Move legality: every distinct legal play of a roll, under every rule of RULES.md.

A play *is the position it produces*: two ways of moving that end in the same position are one
play.  The search is deliberately plain: try every die on every checker, recursively, keep the
sequences that use the most dice (and, when only one die of a non-double can be used, the larger
die if it can be), and keep one play per distinct resulting position.

A variant whose moves read more than the board (checkers in hand, Dutch's bar on hitting: see
``bgsim.variants``) searches the 30 slots of ``Position.search_slots``: a checker in hand moves
from slot :data:`~bgsim.board.HAND` and enters as from the bar.  Every other game searches the
26 slots of the board, as the standard game always has.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from .board import BAR, HAND, HOME, NO_HIT, Position, PositionError
from .variants import Variant

Move = tuple[int, int, bool]  # (from point, to point, hit); 25 is the bar, 26 the hand, 0 is off


class RollError(ValueError):
    """Dice that are not a backgammon roll."""


@dataclass(frozen=True)
class Play:
    """One legal play: its checker moves, its notation and the position it produces.

    ``result`` is seen from the side that moved (not yet turned to the opponent), as GNU
    Backgammon lists move results.
    """

    moves: tuple[Move, ...]
    result: Position

    @property
    def notation(self) -> str:
        return notation(self.moves)

    def __str__(self) -> str:
        return self.notation


class NotAPositionError(PositionError, TypeError):
    """Something other than a Position where one is needed (a ValueError, as all bad input)."""


def check_roll(roll) -> tuple[int, int]:
    if isinstance(roll, (str, bytes)):
        raise RollError(f"a roll is two dice, got {roll!r}")
    try:
        first, second = roll
    except (TypeError, ValueError):
        raise RollError(f"a roll is two dice, got {roll!r}") from None
    dice = []
    for die in (first, second):
        # any whole number type will do (numpy's included), but not True/False or 3.0
        try:
            value = operator.index(die)
        except TypeError:
            value = None
        if value is None or isinstance(die, bool):
            raise RollError(f"a die is a whole number from 1 to 6, got {die!r}")
        if not 1 <= value <= 6:
            raise RollError(f"a die shows 1 to 6, got {value}")
        dice.append(int(value))
    return dice[0], dice[1]


def single_moves(board: list[int], die: int, variant: Variant | None = None) -> list[Move]:
    """Every legal move of one checker by one die (no look at the other dice).

    ``board``: the 26 slots, or with a ``variant`` whose moves read its state the 30 slots of
    ``Position.search_slots``.
    """
    in_hand = board[HAND] if variant is not None else 0
    if board[BAR] > 0:
        sources = [BAR]  # bar first: nothing else may move while a checker is on the bar
    elif in_hand and variant.hand_enters_first:
        sources = [HAND]  # Dutch: checkers in hand behave as checkers on the bar
    else:
        sources = [point for point in range(24, 0, -1) if board[point] > 0]
        if in_hand:
            sources.insert(0, HAND)  # acey-deucey: entering is one choice among the others
    all_home = not in_hand and all(count <= 0 for count in board[7:26])
    # Dutch: a side that has not reached its home board may not hit, so a blot is closed to it
    lowest_open = 0 if variant is not None and board[NO_HIT] else -1
    moves = []
    for source in sources:
        target = (BAR if source == HAND else source) - die  # a checker in hand enters as from the bar
        if target >= 1:
            if board[target] >= lowest_open:  # open: empty, ours, or a lone opposing blot
                moves.append((source, target, board[target] == -1))
        elif all_home:
            higher_checkers = any(board[point] > 0 for point in range(source + 1, 7))
            if target == 0 or not higher_checkers:
                moves.append((source, 0, False))
    return moves


def apply_move(board: list[int], move: Move) -> list[int]:
    source, target, hit = move
    after = list(board)
    after[source] -= 1
    if target >= 1:
        if hit:
            after[target] = 0
            after[0] -= 1  # the hit checker goes to the opponent's bar
        after[target] += 1
        if target in HOME and len(after) > NO_HIT and after[NO_HIT]:
            after[NO_HIT] = 0  # Dutch: home reached, hits allowed from the next die on
    return after


def _sequences(board, dice, moves_so_far, found, variant=None):
    """Depth-first over the dice in the given order; records (moves, board) at every leaf.

    A sequence stops early when its next die cannot be played: the dice after it are forfeited.
    """
    if not dice:
        found.append((moves_so_far, board))
        return
    options = single_moves(board, dice[0], variant)
    if not options:
        found.append((moves_so_far, board))
        return
    for move in options:
        _sequences(apply_move(board, move), dice[1:], moves_so_far + (move,), found, variant)


def legal_plays(position: Position, roll) -> list[Play]:
    """Every distinct legal play of ``roll`` from ``position`` (the side on roll moves).

    The list is in the canonical order both engines share: ascending by the resulting
    position's :attr:`Position.key` (then its slots, variant state last).  No legal play gives
    an empty list.  The position's variant decides the rules (``bgsim.variants``) and every
    result is of the same variant.
    """
    if not isinstance(position, Position):
        raise NotAPositionError(f"legal_plays needs a Position, got {type(position).__name__}")
    first, second = check_roll(roll)
    if first == second:
        orders = [(first,) * 4]
    else:
        orders = [(first, second), (second, first)]

    variant = position.variant_rules if position.variant != "standard" else None
    if variant is not None and not variant.moves_differ:
        variant = None  # Nackgammon, hypergammon: the standard moves on the 26 slots
    start = position.search_slots if variant is not None else list(position.board)

    found: list[tuple[int, tuple[Move, ...], list[int]]] = []  # (first die, moves, board)
    for dice in orders:
        sequences: list[tuple[tuple[Move, ...], list[int]]] = []
        _sequences(start, dice, (), sequences, variant)
        found.extend((dice[0], moves, board) for moves, board in sequences)

    most_dice = max(len(moves) for _, moves, _ in found)
    if most_dice == 0:
        return []
    candidates = [(die, moves, board) for die, moves, board in found if len(moves) == most_dice]
    if first != second and most_dice == 1:
        # only one die can be played: it must be the larger one whenever the larger one can be
        larger = max(first, second)
        with_larger = [candidate for candidate in candidates if candidate[0] == larger]
        if with_larger:
            candidates = with_larger

    plays: dict[tuple[int, ...], Play] = {}
    for _, moves, board in candidates:
        result = tuple(board)
        if result not in plays:
            plays[result] = Play(moves, Position.from_search(result, position.variant))
    return [plays[slots] for _, slots in sorted((play.result.key, slots) for slots, play in plays.items())]


def notation(moves: tuple[Move, ...]) -> str:
    """Standard notation: ``13/7 8/7``, ``bar/22``, ``6/off``, ``8/7*``, ``24/18(2)``; a checker
    entering from hand (a variant) is written ``hand/22``.

    Checkers are alike, so the notation describes the play, not the order the search found
    its moves in: moves are taken from the highest point down, so that moves of one checker in a
    row are joined whatever order they were found in (``24/21 21/16`` and ``21/16 24/21`` are
    both written ``24/16``; a hit on the way shows as ``24/21*/16``), the first checker to land
    on a blot is the one that hits it, and identical moves are counted (``24/18(2)``).  Moves
    are listed from the highest point down, the shorter first when two start on one point.
    """
    hit_points = {target for _, target, hit in moves if hit}
    paths: list[list[list]] = []  # each path: [from, to, hit] steps of one checker
    for source, target, _ in sorted(moves, key=lambda move: (-move[0], move[1])):
        hit = target in hit_points
        hit_points.discard(target)
        for path in paths:
            # the same checker carries on if some path ends where this move starts
            if path[-1][1] == source and source != 0:
                path.append([source, target, hit])
                break
        else:
            paths.append([[source, target, hit]])

    def point_name(point: int) -> str:
        return "bar" if point == BAR else "hand" if point == HAND else "off" if point == 0 else str(point)

    texts = []
    for path in paths:
        text = point_name(path[0][0])
        for index, (_, target, hit) in enumerate(path):
            last = index == len(path) - 1
            if hit or last:
                text += "/" + point_name(target) + ("*" if hit else "")
        texts.append((path[0][0], path[-1][1], text))
    texts.sort(key=lambda item: (-item[0], -item[1]))
    counted: list[list] = []
    for _, _, text in texts:
        if counted and counted[-1][0] == text:
            counted[-1][1] += 1
        else:
            counted.append([text, 1])
    return " ".join(text if count == 1 else f"{text}({count})" for text, count in counted)
