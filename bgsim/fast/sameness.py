"""Proof of sameness: compare the fast engine with the reference, game by game and play by play.

Used by ``bgsim validate`` and the tests.  Nothing here imports ``bots``: players are passed in.
"""

from __future__ import annotations

import random as _random
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..board import Position
from ..cube import Rules
from ..decisions import RandomPlayer
from ..rules import legal_plays
from ..variants import STANDARD, variant_of
from . import legal_plays_fast, trace_game
from .game import TRACE_CHOSEN_DOUBLE, TRACE_HEAD, TRACE_STATE

ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7))  # the 21 distinct rolls
CUBE_ACTIONS = ("", "double/take", "double/beaver", "double/drop")


# --- positions ------------------------------------------------------------------------------


def scattered_position(rng: _random.Random) -> Position:
    """A random legal position: checkers dropped on random points, some on the bar, some off.

    The mix leans on the corners of the rules: bear-offs (everything home), checkers on the bar
    against closed boards, few checkers left.
    """
    board = [0] * 26
    for sign in (1, -1):
        count = 15 - rng.randrange(0, 4) if rng.random() < 0.8 else rng.randrange(1, 16)
        reach = rng.choice((6, 6, 10, 24, 25))
        for _ in range(count):
            for _attempt in range(50):
                point = rng.randrange(1, reach + 1)
                slot = point if sign > 0 else 25 - point
                if slot in (0, 25):
                    slot = 25 if sign > 0 else 0
                if board[slot] * sign >= 0:
                    board[slot] += sign
                    break
    return Position(tuple(board))


# random checker play and no cube, in both engines, without the bots package
FastRandomPlayer = RandomPlayer


def scattered_variant_position(rng: _random.Random, variant: str) -> Position:
    """A random legal position of ``variant``: a scattered board (``scattered_position``) cut to
    the variant's checkers, then, where the variant has a hand, some checkers of each side taken
    back into it (none, a few, or all: an entering phase) and Dutch's bar on hitting for a side
    that has neither come home nor borne off."""
    rules = variant_of(variant)
    board = list(scattered_position(rng).board)
    hands = [0, 0]
    hits = [False, False]
    for side, sign in enumerate((1, -1)):
        def own_slots():
            return [slot for slot in range(26) if board[slot] * sign > 0]

        while sum(board[slot] * sign for slot in own_slots()) > rules.checkers:
            board[rng.choice(own_slots())] -= sign  # a hypergammon keeps only its few
        if rules.hand:
            kind = rng.random()
            if kind < 0.25:
                for slot in own_slots():  # everything in hand, or borne off
                    board[slot] = 0
                hands[side] = rules.checkers - rng.choice((0, 0, rng.randrange(0, 15)))
            elif kind < 0.75:
                for _ in range(rng.randrange(1, 6)):
                    if own_slots():
                        board[rng.choice(own_slots())] -= sign
                        hands[side] += 1
        if rules.hits_after_home:
            on = sum(board[slot] * sign for slot in own_slots())
            home = any(board[point if sign > 0 else 25 - point] * sign > 0 for point in range(1, 7))
            hits[side] = on + hands[side] == rules.checkers and not home and rng.random() < 0.7
    return Position(tuple(board), variant, tuple(hands), tuple(hits))


def played_positions(seed: int, games: int, variant: str = STANDARD) -> list[Position]:
    """Every position on roll in ``games`` random-vs-random games of the fast engine."""
    player = RandomPlayer()
    positions = []
    for number in range(games):
        _, trace = trace_game(player, player, seed, number, Rules(variant=variant))
        positions.extend(traced_position(row, variant) for row in trace)
    return positions


def random_positions(count: int, seed: int = 0, variant: str = STANDARD) -> list[Position]:
    """``count`` positions, half scattered, half from real random games (distinct where possible)."""
    rng = _random.Random(seed)
    played = played_positions(seed, max(1, count // 100), variant)
    rng.shuffle(played)
    positions = played[: count // 2]
    while len(positions) < count:
        if variant == STANDARD:
            positions.append(scattered_position(rng))
        else:
            positions.append(scattered_variant_position(rng, variant))
    return positions


def traced_position(row, variant: str = STANDARD, after: bool = False) -> Position:
    """The position before the roll (or ``after`` the play) of a traced ply (``trace_game``)."""
    board = tuple(int(v) for v in row[TRACE_HEAD + 26 * after:TRACE_HEAD + 26 * after + 26])
    if variant == STANDARD:
        return Position(board)
    state = [int(v) for v in row[TRACE_STATE + 4 * after:TRACE_STATE + 4 * after + 4]]
    return Position.from_search(list(board) + state, variant)


def start_case(count: int, seed: int = 0, given: bool = True, variant: str = STANDARD) -> dict:
    """Keyword arguments of ``play_games`` for ``count`` games from random positions of
    ``variant`` (not finished) instead of the opening; with ``given`` the first two rolls are
    given and every other game's dice are mirrored (the paths a rollout takes)."""
    positions = [position for position in random_positions(count, seed, variant) if not position.finished]
    if not given:
        return {"start": positions}
    rng = _random.Random(seed)
    rolls = np.array([[(rng.randint(1, 6), rng.randint(1, 6)) for _ in range(2)] for _ in positions],
                     dtype=np.int64).reshape(len(positions), 2, 2)
    return {"start": positions, "rolls": rolls, "mirror": np.arange(len(positions)) % 2 == 1}


@dataclass
class PlayMismatch:
    position: Position
    roll: tuple[int, int]
    reference: list[tuple[int, ...]]
    fast: list[tuple[int, ...]]

    def __str__(self) -> str:
        ref, fast = set(self.reference), set(self.fast)
        kind = "different plays" if ref != fast else "same plays in a different order"
        lines = [f"legal plays differ ({kind}) for position {self.position.position_string} "
                 f"roll {self.roll[0]}-{self.roll[1]}: reference {len(ref)}, fast {len(fast)}"]
        name = lambda slots: Position.from_search(slots, self.position.variant).position_string  # noqa: E731
        for board in sorted(ref - fast)[:5]:
            lines.append(f"  only in reference: {name(board)}")
        for board in sorted(fast - ref)[:5]:
            lines.append(f"  only in fast:      {name(board)}")
        return "\n".join(lines)


def compare_legal_plays(positions, rolls=ROLLS) -> tuple[int, PlayMismatch | None]:
    """(pairs compared, first mismatch or None); every position with every roll.  A variant
    whose moves read its state is compared on all 30 search slots (``Position.search_slots``)."""
    compared = 0
    for position in positions:
        state = position.variant_rules.moves_differ
        for roll in rolls:
            reference = [tuple(play.result.search_slots) if state else play.result.board
                         for play in legal_plays(position, roll)]
            fast = [tuple(int(v) for v in row) for row in legal_plays_fast(position, roll)]
            compared += 1
            if reference != fast:
                return compared, PlayMismatch(position, roll, reference, fast)
    return compared, None


# --- games ----------------------------------------------------------------------------------


@dataclass
class RowMismatch:
    row: int
    game: int
    game_in_match: int
    column: str
    reference: object
    fast: object


def compare_frames(reference: pd.DataFrame, fast: pd.DataFrame) -> RowMismatch | None:
    """The first differing row and column (in row order, then column order), or None."""
    if list(reference.columns) != list(fast.columns):
        return RowMismatch(-1, -1, -1, "<columns>", list(reference.columns), list(fast.columns))
    for name in reference.columns:
        if reference[name].dtype != fast[name].dtype:
            return RowMismatch(-1, -1, -1, f"<dtype of {name}>", reference[name].dtype, fast[name].dtype)
    rows = min(len(reference), len(fast))
    first = None
    for name in reference.columns:
        ref = reference[name].iloc[:rows].reset_index(drop=True)
        got = fast[name].iloc[:rows].reset_index(drop=True)
        # Nulls ("nobody doubled") are equal to each other and to nothing else.
        same = ref.eq(got).fillna(False).to_numpy(dtype=bool) | (ref.isna() & got.isna()).to_numpy()
        differ = np.nonzero(~same)[0]
        if len(differ) and (first is None or differ[0] < first[0]):
            first = (int(differ[0]), name)
    if first is None:
        if len(reference) != len(fast):
            return RowMismatch(rows, -1, -1, "<row count>", len(reference), len(fast))
        return None
    row, name = first
    in_match = int(reference["game_in_match"].iloc[row]) if "game_in_match" in reference else 0  # a chouette's: 0
    return RowMismatch(row, int(reference["game"].iloc[row]), in_match, name, reference[name].iloc[row],
                       fast[name].iloc[row])


@dataclass
class PlyMismatch:
    game: int
    game_in_match: int
    ply: int
    side: str
    position_id: str
    roll: tuple[int, int] | None
    reference: str
    fast: str

    def __str__(self) -> str:
        roll = "none (dropped double)" if self.roll is None else f"{self.roll[0]}-{self.roll[1]}"
        where = f"game {self.game}" + (f" (game {self.game_in_match} of the match)" if self.game_in_match else "")
        return (f"{where}, ply {self.ply}, {self.side} on roll, position {self.position_id}, roll {roll}\n"
                f"  reference: {self.reference}\n  fast:      {self.fast}")


def _describe_fast_ply(row, variant: str = STANDARD) -> tuple[str, str, tuple[int, int] | None, str]:
    before = traced_position(row, variant)
    after = traced_position(row, variant, after=True)
    action = CUBE_ACTIONS[int(row[3])]
    roll = None if action == "double/drop" else (int(row[4]), int(row[5]))
    if roll is None:
        return before.position_string, action, roll, ""
    notation = ""
    if int(row[6]) > 0:
        for play in legal_plays(before, roll):
            if play.result == after:
                notation = play.notation
                break
        else:
            notation = "<not a legal play>"
    return before.position_string, action, roll, f"{notation} -> {after.position_string}"


def explain_game(white, black, seed: int, number: int, rules: Rules = Rules(),
                 match_to: int = 0) -> PlyMismatch | None:
    """Replay one game (or match) in both engines with traces; the first ply where they part."""
    from ..game import play_game
    from ..match import play_match

    if match_to:
        games = play_match(white, black, seed, number, match_to, rules, trace=True).games
    else:
        games = [play_game(white, black, seed, number, rules, trace=True)]
    reference = [(index, record) for index, game in enumerate(games) for record in game.history]
    _, trace = trace_game(white, black, seed, number, rules, match_to)
    for step in range(max(len(reference), len(trace))):
        if step >= len(reference) or step >= len(trace):
            side = "?"
            ref_text = "<game over>" if step >= len(reference) else reference[step][1].play
            fast_text = "<game over>" if step >= len(trace) else "a further ply"
            return PlyMismatch(number, 0, step + 1, side, "", None, ref_text, fast_text)
        in_match, record = reference[step]
        row = trace[step]
        position_id, action, roll, fast_text = _describe_fast_ply(row, rules.variant)
        ref_text = (f"{record.play} -> {record.result_id}" if record.roll is not None else "")
        side = ("white", "black")[int(row[2])]
        if row[TRACE_CHOSEN_DOUBLE]:
            action = (action + " " if action else "") + "acey-deucey's chosen double"
        if record.chosen_double:
            ref_action = (record.cube_action + " " if record.cube_action else "") + "acey-deucey's chosen double"
        else:
            ref_action = record.cube_action
        same = (in_match == int(row[0]) and record.ply == int(row[1]) and record.side == side
                and record.position_id == position_id and ref_action == action
                and record.roll == roll and (record.roll is None or ref_text.split(" -> ")[-1] == fast_text.split(" -> ")[-1]))
        if not same:
            return PlyMismatch(
                number, in_match, record.ply, record.side, record.position_id, record.roll,
                f"{record.side} {ref_action or 'no cube action'}, roll {record.roll}, play {ref_text}",
                f"{side} {action or 'no cube action'}, roll {roll}, play {fast_text}",
            )
    return None


def explain_chouette(players, seed: int, number: int, seating, rules: Rules = Rules(),
                     chouette_cubes: str = "team") -> PlyMismatch | None:
    """Replay chouette game ``number`` (seated as ``seating``) in both engines with traces; the
    first ply where they part (its side on roll, who moved, the cube answers, the roll, the play)."""
    from ..chouette import BOX, TEAM, CubeEvent, play_chouette
    from .chouette import (
        ACTIONS, EVENT_ACTION, EVENT_PLAYER, EVENT_VALUE, TRACE_DIE1, TRACE_DIE2, TRACE_EVENTS,
        TRACE_FIRST_EVENT, TRACE_HEAD, TRACE_MOVER, TRACE_PLAYS, TRACE_PLY, TRACE_SIDE, Table,
    )

    reference = play_chouette(players, seating, seed, number, rules, chouette_cubes, trace=True).history
    _, trace, events = Table(players, rules, chouette_cubes).trace(seed, number, seating.order)
    sides = (BOX, TEAM)
    for step in range(max(len(reference), len(trace))):
        if step >= len(reference) or step >= len(trace):
            return PlyMismatch(number, 0, step + 1, "?", "", None,
                               "<game over>" if step >= len(reference) else "a further ply",
                               "<game over>" if step >= len(trace) else "a further ply")
        record, row = reference[step], trace[step]
        before = Position(tuple(int(v) for v in row[TRACE_HEAD:TRACE_HEAD + 26]))
        after = Position(tuple(int(v) for v in row[TRACE_HEAD + 26:TRACE_HEAD + 52]))
        first = int(row[TRACE_FIRST_EVENT])
        answers = tuple(CubeEvent(int(event[EVENT_PLAYER]), ACTIONS[int(event[EVENT_ACTION])], int(event[EVENT_VALUE]))
                        for event in events[first:first + int(row[TRACE_EVENTS])])
        mover = int(row[TRACE_MOVER])
        roll = None if mover < 0 else (int(row[TRACE_DIE1]), int(row[TRACE_DIE2]))
        notation = ""
        if roll is not None and int(row[TRACE_PLAYS]) > 0:
            notation = next((play.notation for play in legal_plays(before, roll) if play.result == after),
                            "<not a legal play>")
        fast = (int(row[TRACE_PLY]), sides[int(row[TRACE_SIDE])], mover, before.position_id, answers, roll, notation)
        ours = (record.ply, record.side, record.mover, record.position_id, record.cube, record.roll, record.play)
        if fast != ours:
            def text(ply):
                _, side, who, _, cube, dice, play = ply
                said = "; ".join(f"{event.player} {event.action} ({event.value})" for event in cube) or "no cube answer"
                return f"{side} on roll, player {who} moves, {said}, roll {dice}, play {play or '-'}"

            return PlyMismatch(number, 0, record.ply, record.side, record.position_id, record.roll,
                               text(ours), text(fast))
    return None
