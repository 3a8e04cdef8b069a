"""The random streams: a pure function of (run seed, game number, stream number, draw index).

Both engines implement exactly this definition, so a game can be replayed on its own and the
fast engine consumes the very same dice as the reference engine, whatever the batch size,
thread count or order of play.

Definition (all arithmetic modulo 2**64):

    mix64(z)            = SplitMix64's finaliser (Steele, Lea & Flood 2014, as in java.util.SplittableRandom)
    key(seed, game, s)  = mix64(mix64(mix64(seed) ^ game) ^ s)
    draw i (i = 1, 2..) = mix64(key + i * GOLDEN)            -- the SplitMix64 sequence from key

A uniform integer below n takes draws until one falls below the largest multiple of n that fits
in 64 bits (so no value is favoured) and returns it modulo n.  A die is ``below(6) + 1``.

Stream numbers: a money game uses stream 0 for the dice, 1 for white's own random choices and 2
for black's.  Game k of a match (k = 0, 1, ...) uses streams 4k, 4k + 1 and 4k + 2, with the
match number as the game number.  The dice never depend on the players' choices, so the same
dice can be dealt again with the seats swapped.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15

DICE_STREAM = 0
WHITE_STREAM = 1
BLACK_STREAM = 2
STREAMS_PER_GAME = 4

MAX_SEED = (1 << 63) - 1


def mix64(z: int) -> int:
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def stream_key(seed: int, game: int, stream: int) -> int:
    return mix64(mix64(mix64(seed) ^ game) ^ stream)


def check_seed(seed: int, what: str = "seed") -> int:
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"{what} must be a whole number from 0 to 2**63-1, got {seed!r}")
    return seed


class RandomStream:
    """One counter-based stream of 64-bit draws; see the module docstring."""

    def __init__(self, seed: int, game: int, stream: int) -> None:
        self.key = stream_key(seed, game, stream)
        self.draws = 0

    def next64(self) -> int:
        self.draws += 1
        return mix64(self.key + self.draws * GOLDEN)

    def below(self, n: int) -> int:
        """A uniform whole number in 0..n-1."""
        if n < 1:
            raise ValueError(f"cannot draw below {n}")
        limit = ((1 << 64) // n) * n
        while True:
            draw = self.next64()
            if draw < limit:
                return draw % n

    def die(self) -> int:
        return self.below(6) + 1

    def roll(self) -> tuple[int, int]:
        first = self.die()
        return first, self.die()
