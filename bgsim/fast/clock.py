"""The processor's cycle counter in kernels, for ``bgsim bench --profile`` (Numba has no profiler).

``cycles()`` reads the time-stamp counter (LLVM's ``readcyclecounter``: ``rdtsc`` on x86, which
ticks at a constant rate on every processor this engine targets, whatever the clock speed).
A read costs tens of cycles, so a profile calibrates that cost (``lap_cost``) and takes it off
every lap.  The counter runs on while the process waits for a core, so a profile uses the
laps' shares only and takes its times from CPU time (``bgsim.fast.timing.profile``).

The game loop (``bgsim.fast.game.play_one``) carries laps behind the constant ``PROFILE``:
the engine's kernels are compiled with it off (the laps are not in their machine code) and
``bgsim.fast.timing`` compiles a copy with it on.
"""

from __future__ import annotations

import platform

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from .compile import alloc_jit, inline_jit

# the phases of the game loop: clock[0, phase] cycles, clock[1, phase] laps, clock[2, phase] laps
# left out (see LONGEST_LAP)
(PHASE_SETUP, PHASE_DICE, PHASE_CUBE, PHASE_GENERATE, PHASE_CHOOSE, PHASE_BOOKKEEPING,
 PHASE_ROW) = range(7)
PHASES = ("game setup", "dice", "cube decisions", "move generation", "choice (evaluation)",
          "bookkeeping", "row writing")
N_PHASES = len(PHASES)


X86 = platform.machine().lower() in ("x86_64", "amd64")


@intrinsic
def cycles(typingctx):
    """The time-stamp counter, as int64.  On x86 an ``lfence`` first, so that the work before
    the read has finished when it is taken (``rdtsc`` alone may run ahead of it)."""
    def codegen(context, builder, signature, args):
        if X86:
            fence = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.lfence")
            builder.call(fence, [])
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter")
        return builder.call(function, [])
    return types.int64(), codegen


# A lap longer than this (about a millisecond) held a wait for the core, not work of the loop
# (no phase of a ply comes near it; an operating system's time slice is longer): it is left out
# and counted in clock[2, phase].
LONGEST_LAP = 2_000_000


@inline_jit
def lap(clock, phase, mark):
    """Charge the cycles since ``mark`` to ``phase``; the new mark."""
    now = cycles()
    spent = now - mark
    if spent < LONGEST_LAP:
        clock[0, phase] += spent
        clock[1, phase] += 1
    else:
        clock[2, phase] += 1
    return now


@alloc_jit
def lap_cost(repeats, tries):
    """Cycles one ``lap`` costs (the counter read and the bookkeeping): the least average of
    ``tries`` runs of ``repeats`` laps, since other work on the machine only ever adds."""
    clock = np.zeros((3, N_PHASES), dtype=np.int64)
    best = np.inf
    for _ in range(tries):
        mark = cycles()
        started = mark
        for _ in range(repeats):
            mark = lap(clock, 0, mark)
        best = min(best, (cycles() - started) / repeats)
    return best

