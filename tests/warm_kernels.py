"""Compile one share of the fast engine's kernel families into Numba's cache (``python
tests/warm_kernels.py PART``), for ``conftest.pytest_sessionstart``.

On a clean clone the cache is empty, and each test worker compiling every family it meets
would compile most of them once per worker: about 240 CPU seconds each.  Two of these processes,
one per share, fill the cache side by side before the workers start, and every worker then
loads what they wrote.  The games are thrown away: what is kept is the compiled code.
"""

from __future__ import annotations

import sys

def warm(part: str) -> None:
    from bgsim.chouette import play_chouettes
    from bgsim.cube import Rules
    from bgsim.series import play_games
    from bots import make_player

    random, pipdiff, exact = make_player("random"), make_player("heuristic+pipdiff"), make_player("random+exact")
    if part == "standard":  # every bot's kernels, the exact family, matches
        play_games(random, pipdiff, 1, 1, engine="fast")
        play_games(random, exact, 1, 1, engine="fast")
        play_games(random, pipdiff, 1, 1, engine="fast", match_to=3)
    else:  # the variants' families and the chouette
        variant = Rules(variant="nackgammon")
        play_games(random, random, 1, 1, engine="fast", rules=variant)
        play_games(random, exact, 1, 1, engine="fast", rules=variant)
        play_chouettes([make_player("random+pipdiff")] * 3, 1, 1, engine="fast")


if __name__ == "__main__":
    warm(sys.argv[1])
