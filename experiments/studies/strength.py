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
