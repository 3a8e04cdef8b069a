"""The reference engine's random streams (``bgsim.dice``) in uint64 kernels.

A stream is one row ``[key, draws]`` of a uint64 array.  Everything stays uint64: Numba turns
mixed int64/uint64 arithmetic into float64, which would silently break the sequence.
"""

from __future__ import annotations

import numpy as np

from ..dice import GOLDEN as _GOLDEN
from .compile import inline_jit, jit

GOLDEN = np.uint64(_GOLDEN)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
ONE = np.uint64(1)
ZERO = np.uint64(0)
ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


@inline_jit
def mix64(z):
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@jit
def stream_key(seed, game, stream):
    return mix64(mix64(mix64(np.uint64(seed)) ^ np.uint64(game)) ^ np.uint64(stream))


@jit
def open_stream(streams, row, seed, game, stream):
    streams[row, 0] = stream_key(seed, game, stream)
    streams[row, 1] = ZERO


@inline_jit
def next64(streams, row):
    streams[row, 1] += ONE
    return mix64(streams[row, 0] + streams[row, 1] * GOLDEN)


@inline_jit
def below(streams, row, n):
    """A uniform whole number in 0..n-1, by the reference's rejection rule.

    Inlined: for a die ``n`` is the constant 6, so both remainders become multiplications.

    The reference accepts draws below the largest multiple of n that fits in 2**64; that bound
    is 2**64 - (2**64 mod n), and 2**64 mod n is (0 - n) mod n in uint64 arithmetic.
    """
    un = np.uint64(n)
    rest = (ZERO - un) % un
    accept = ALL_ONES - rest
    while True:
        draw = next64(streams, row)
        if draw <= accept:
            return np.int64(draw % un)


@inline_jit
def die(streams, row):
    return below(streams, row, 6) + 1
