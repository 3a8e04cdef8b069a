"""The game kernels of a run of a variant (``bgsim.variants``): ``bgsim.fast.game``'s, from the
same source, compiled with ``VARIANT_GAMES`` on.

Apart from the standard game's kernels so that those hold not one instruction of the variants
(their speed is the bench's), and compiled only by a run that plays a variant, once: Numba keeps
them on disk under their own names (``rebind``).  A run with the ``exact`` cube bot plays on the
second family, whose cube questions go through the exact bot's dispatch as in
``bgsim.fast.with_exact``; a user's evaluation function on ``bgsim.fast.custom``'s kernels.
"""

from __future__ import annotations

from . import game
from .compile import alloc_jit, jit, rebind
from .dispatch import offer_double_with_exact, respond_with_exact

play_one = jit(rebind(game.play_one, "play_one_variants", VARIANT_GAMES=True))
play_number = jit(rebind(game.play_number, "play_number_variants", play_one=play_one))
play_batch = alloc_jit(rebind(game.play_batch, "play_batch_variants", play_number=play_number))
trace_number = alloc_jit(rebind(game.trace_number, "trace_number_variants", play_number=play_number))

_play_one_with_exact = jit(rebind(game.play_one, "play_one_variants_with_exact", VARIANT_GAMES=True,
                                  offer_double=offer_double_with_exact, respond=respond_with_exact))
_play_number_with_exact = jit(rebind(game.play_number, "play_number_variants_with_exact",
                                     play_one=_play_one_with_exact))
play_batch_with_exact = alloc_jit(rebind(game.play_batch, "play_batch_variants_with_exact",
                                            play_number=_play_number_with_exact))
trace_number_with_exact = alloc_jit(rebind(game.trace_number, "trace_number_variants_with_exact",
                                           play_number=_play_number_with_exact))
