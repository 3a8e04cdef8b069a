"""The Numba engine: game-for-game identical to the reference engine, many times faster.

Until its kernels land, every call says so clearly.
"""


def supports(player) -> bool:
    return False


def play_games(white, black, seed, games, rules, match_to=0, threads=None):
    raise NotImplementedError("the fast engine is not built yet: use engine='reference'")
