"""``nn``'s plays computed by the fast engine's kernels inside a reference-engine game.

Against a player that only the reference engine seats (``gnubg``, ``bgsage``, an outside
engine), every game runs on the reference engine, and ``nn(plies=1)``'s search there asks the
Python move generator of 21 rolls a ply: about 0.3 s a decision, hours for a strength run.
:func:`fast_picks` gives the bot the kernels' choice instead (``bgsim.fast.nn.choose`` at 0 ply,
``choose_ahead`` at 1), which ``tests/test_nn.py`` proves equal to the reference's, play for
play; the bear-off switch still comes first (``CheckerBot.choose``).
"""

from __future__ import annotations

import numpy as np

from bgsim.board import Position


def fast_picks(player):
    """``player`` (a ``BotPlayer`` whose checker bot is ``nn``) with its checker bot's ``pick``
    taken by the fast kernels; the same object, returned."""
    from bgsim.fast.moves import BOARD_BYTES, generate, new_buffers
    from bgsim.fast.nn import choose, choose_ahead
    from bots.nn import NNChecker, UNIT

    bot = player.checker
    if not isinstance(bot, NNChecker):
        raise ValueError(f"fast_picks: {bot.spec} is not the nn checker bot")
    net = bot.net
    arrays = net.arrays()
    buffers = new_buffers()
    sums = np.zeros((2, net.hidden), dtype=np.int32)
    probabilities = np.zeros(5, dtype=np.int64)
    margin = round(bot.margin * UNIT)

    def pick(position: Position, roll, plays, random):
        plays_buffer, keys, slots, table, order = buffers
        board = np.zeros(BOARD_BYTES, dtype=np.int8)
        board[:26] = position.as_standard().board if position.variant != "standard" else position.board
        count = generate(board, roll[0], roll[1], plays_buffer, keys, slots, table, order)
        if count != len(plays):
            raise RuntimeError(f"fast_picks: {count} plays in the fast engine, {len(plays)} in the reference "
                               f"({position.position_id}, {roll})")
        if bot.plies:
            index = choose_ahead(board, plays_buffer, keys, count, bot.keep, margin, *arrays, order)
        else:
            index = choose(board, plays_buffer, keys, count, *arrays, sums[0], sums[1], probabilities)
        chosen = tuple(int(v) for v in plays_buffer[index, :26])
        for play in plays:
            if play.result.board == chosen:
                return play
        raise RuntimeError(f"fast_picks: the kernel's play is not legal in the reference ({position.position_id})")

    bot.pick = pick
    return player


def duel(white: str, black: str, deals: int, seed: int, engine: str = "fast") -> np.ndarray:
    """``white``'s points in each deal's two games against ``black``, (deals, 2): cubeless
    (``Rules(cube=False)``), game numbers 0..deals-1 of ``seed``, column 1 with the seats swapped
    on the same dice (``results/strength.md``'s method).  On the reference engine an ``nn``
    checker bot chooses by the kernels (:func:`fast_picks`)."""
    from bgsim.cube import Rules
    from bgsim.series import play_games
    from bots import make_player
    from bots.nn import NNChecker

    def seat(spec):
        player = make_player(spec)
        if engine == "reference" and isinstance(player.checker, NNChecker):
            fast_picks(player)
        return player

    first, second = seat(white), seat(black)
    rules = Rules(cube=False)
    as_white = play_games(first, second, seed, deals, rules, engine=engine).sort_values("game")
    as_black = play_games(second, first, seed, deals, rules, engine=engine).sort_values("game")
    return np.stack([as_white["white_points"].to_numpy(), -as_black["white_points"].to_numpy()], axis=1)


if __name__ == "__main__":  # python -m experiments.studies.strength WHITE BLACK DEALS SEED ENGINE OUT.npy
    import json
    import sys

    from experiments.stats import mean_interval

    white, black, deals, seed, engine, out = sys.argv[1:7]
    points = duel(white, black, int(deals), int(seed), engine)
    np.save(out, points)
    mean, half = mean_interval(points.mean(axis=1))
    print(json.dumps({"white": white, "black": black, "deals": int(deals), "seed": int(seed), "engine": engine,
                      "mean": round(mean, 4), "ci95": round(half, 4)}))
