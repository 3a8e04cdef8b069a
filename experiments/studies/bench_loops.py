"""Other engines' game loops, the yardsticks of ``bgsim bench``: GNU Backgammon's (``gnubg_nn``:
uniform-random games over its move generator, and its 0-ply net choosing every play) and
OpenSpiel's random playouts of ``backgammon``.  Each is optional: a figure is set against the
ones that are installed (:func:`available`).
"""

from __future__ import annotations

import random
import time

START_ID = "4HPwATDgc/ABMA"


def gnubg_random_loop(games: int, seed: int):
    """Uniform-random games over ``gnubg_nn.moves``: (games/s, plies/s)."""
    import gnubg_nn

    rng = random.Random(seed)
    start = gnubg_nn.board_from_position_id(START_ID)
    plies = 0
    started = time.perf_counter()
    for _ in range(games):
        board = start  # [side not on roll, side on roll]
        while True:
            plies += 1
            keys = gnubg_nn.moves(board, rng.randint(1, 6), rng.randint(1, 6))
            if keys:
                opponent, mover = gnubg_nn.board_from_position_key(rng.choice(keys))
                if sum(mover) == 0:
                    break
                board = [mover, opponent]  # the other side is on roll
            else:
                board = [board[1], board[0]]
    seconds = time.perf_counter() - started
    return games / seconds, plies / seconds


def gnubg_best_move_loop(games: int, seed: int):
    """Games of GNU Backgammon's 0-ply net against itself over ``gnubg_nn.best_move``."""
    import gnubg_nn

    rng = random.Random(seed)
    start = gnubg_nn.board_from_position_id(START_ID)
    plies = 0
    started = time.perf_counter()
    for _ in range(games):
        board = start  # [side not on roll, side on roll]
        while True:
            plies += 1
            _, key = gnubg_nn.best_move(board, rng.randint(1, 6), rng.randint(1, 6), n=0, b=1)
            if key:  # the position after the play, the mover first
                mover, opponent = gnubg_nn.board_from_position_key(key)
                if sum(mover) == 0:
                    break
                board = [mover, opponent]  # the other side is on roll
            else:
                board = [board[1], board[0]]
    seconds = time.perf_counter() - started
    return games / seconds, plies / seconds


def openspiel_random_loop(games: int, seed: int):
    """Uniform-random playouts of OpenSpiel's ``backgammon``: (games/s, plies/s)."""
    import pyspiel

    rng = random.Random(seed)
    game = pyspiel.load_game("backgammon")
    plies = 0
    started = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, weights)[0])
                plies += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    seconds = time.perf_counter() - started
    # OpenSpiel plays each die as its own decision; plies count its chance (roll) nodes
    return games / seconds, plies / seconds


def available(module: str) -> bool:
    try:
        __import__(module)
    except Exception:  # noqa: BLE001 - missing or broken: the bench goes on without it
        return False
    return True
