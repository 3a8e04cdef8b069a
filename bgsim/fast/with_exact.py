"""The game kernels of a run where a player's cube bot is ``exact``.

They are ``bgsim.fast.game``'s kernels, from the same source, with the cube questions asked
through ``offer_double_with_exact`` and ``respond_with_exact`` (``bgsim.fast.dispatch``: the cube
dispatch with the bots whose layouts say ``apart``).  The exact
bot's kernels are large (the bear-off tables, the match recursion of ``bgsim.fast.exact``, the
net): compiled into every game kernel they would make the first start of every run a quarter
slower, so only a run with exact compiles them, once, and Numba keeps them on disk under their
own names (``rebind``).
"""

from __future__ import annotations

from . import game
from .compile import alloc_jit, jit, rebind
from .dispatch import offer_double_with_exact, respond_with_exact

play_one = jit(rebind(game.play_one, "play_one_with_exact", offer_double=offer_double_with_exact,
                      respond=respond_with_exact))
play_number = jit(rebind(game.play_number, "play_number_with_exact", play_one=play_one))
play_batch = alloc_jit(rebind(game.play_batch, "play_batch_with_exact", play_number=play_number))
trace_number = alloc_jit(rebind(game.trace_number, "trace_number_with_exact", play_number=play_number))
