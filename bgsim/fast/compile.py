"""The compile options of every kernel, in one place, and a guard against stale caches.

No fastmath: the fast engine must reproduce the reference engine's float64 arithmetic bit for
bit (same operations, same order), or an evaluation bot could break a tie differently.
``error_model="numpy"`` only drops Python's division-by-zero checks, which no kernel relies on.

**Kernels count no references** (``jit``).  By default Numba keeps a reference count on every
array, and a compiled function that calls another one or may raise keeps its array arguments
counted for the whole call: two atomic operations per array argument, about 150 ns for a call
with seven arrays on this engine's machines, paid on every ply by the move generator, the bot
dispatch, the cube questions and every scored play.  So ``jit`` compiles without Numba's
reference counting (its ``_nrt`` option off): a kernel reads and writes the arrays it is given,
takes views of them, and gets small scratch arrays from ``stack_empty``, but never creates an
array that outlives it.  A kernel that must (tables, buffers, results for Python) is an
``alloc_jit`` one; ``jit`` kernels may call it, as long as it hands back no array.  A ``jit``
kernel that calls ``np.empty`` fails to compile with "Only accept returning of array passed into
the function as argument": make it ``alloc_jit`` or use ``stack_empty``.  Every kernel says which
it is, because Numba compiles a function that says neither the way its first caller does and
keeps that one version, on disk too.

Numba's on-disk cache checks only the source file of the function it caches, not the files of
the functions it calls, nor the values of the globals it froze in: after an edit of ``moves.py``
a cached ``game.py`` kernel would still run the old move generator, and after an edit of
``bgsim/layouts.py`` it would still read the old parameter positions.  So the cache files of
this package are dropped whenever any of these sources changed (``source_stamp``, kept beside
the cache, in ``NUMBA_CACHE_DIR`` too); the generated dispatch carries the stamp in its file name (``bgsim.fast.dispatch``).
The stamp covers Python sources only: data files never reach the compiled code.
"""

from __future__ import annotations

import dis
import hashlib
import types
from functools import lru_cache
from pathlib import Path

import numba
from numba.core import cgutils
from numba.core import types as nbtypes
from numba.core.errors import TypingError
from numba.extending import intrinsic

OPTIONS = dict(cache=True, nogil=True, error_model="numpy", boundscheck=False)

jit = numba.njit(_nrt=False, **OPTIONS)
alloc_jit = numba.njit(_nrt=True, **OPTIONS)
parallel_jit = numba.njit(parallel=True, _nrt=True, **OPTIONS)  # allocates each block's buffers
# For small helpers in hot loops: inlined at Numba IR level, so compiled the way their caller is.
inline_jit = numba.njit(inline="always", **OPTIONS)


@intrinsic
def stack_empty(typingctx, shape, dtype):
    """``np.empty(shape, dtype)`` on the stack of the calling kernel, for ``jit`` kernels.

    ``shape`` is a constant (an int or a tuple of ints).  Nothing is allocated or counted, and
    the array is valid only until the kernel that asked for it returns: never return it or
    keep it.  Like ``np.empty`` it is not initialised.
    """
    if isinstance(shape, nbtypes.IntegerLiteral):
        dims = (shape.literal_value,)
    elif isinstance(shape, nbtypes.BaseTuple) and all(
            isinstance(size, nbtypes.IntegerLiteral) for size in shape.types):
        dims = tuple(size.literal_value for size in shape.types)
    else:
        raise TypingError(f"stack_empty needs a constant shape (an int or a tuple of ints written "
                          f"as numbers or module constants), got {shape}")
    item = dtype.dtype
    array_type = nbtypes.Array(item, len(dims), "C")

    def codegen(context, builder, signature, args):
        data_type = context.get_data_type(item)
        itemsize = context.get_abi_sizeof(data_type)
        count = 1
        for size in dims:
            count *= size
        data = cgutils.alloca_once(builder, data_type, size=count)  # in the entry block
        strides = []
        step = itemsize
        for size in reversed(dims):
            strides.insert(0, step)
            step *= size
        constant = lambda value: context.get_constant(nbtypes.intp, value)  # noqa: E731
        array = context.make_array(array_type)(context, builder)
        context.populate_array(array, data=data,
                               shape=cgutils.pack_array(builder, [constant(size) for size in dims]),
                               strides=cgutils.pack_array(builder, [constant(size) for size in strides]),
                               itemsize=constant(itemsize), meminfo=None)
        return array._getvalue()

    return array_type(shape, dtype), codegen


WIDE_VECTORS = '"prefer-vector-width"="512"'


@intrinsic
def prefer_wide_vectors(typingctx):
    """Let the compiler use the processor's widest vectors in the calling kernel.

    LLVM vectorizes with 256-bit registers on processors with 512-bit ones unless a function
    asks for more (clang's ``-mprefer-vector-width=512``): this puts that request on the kernel
    that calls it.  On a processor without 512-bit vectors it changes nothing.
    """
    def codegen(context, builder, signature, args):
        # a string attribute: llvmlite's attribute set only lists keyword attributes by name
        set.add(builder.function.attributes, WIDE_VECTORS)
        return context.get_dummy_value()

    return nbtypes.none(), codegen


class Slot:
    """A global of a game loop's source that every family fills in (``bgsim.fast.families``): a
    dispatch the loop asks or a feature's flag.  The source itself is never compiled: a family
    that left a slot empty is refused when it is made, not when a kernel runs."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __repr__(self) -> str:
        return f"<slot: {self.what}, filled in by each family (bgsim.fast.families)>"


def kernel_compiler(allocates: bool, cache: bool = True, inline: bool = False):
    """``alloc_jit`` (``allocates``) or ``jit``, without Numba's disk cache when ``cache`` is off
    (a family holding a user's function, whose machine code must never be loaded for another);
    with ``inline``, ``inline_jit``."""
    if inline:
        return numba.njit(inline="always", **{**OPTIONS, "cache": cache})
    return numba.njit(_nrt=allocates, **{**OPTIONS, "cache": cache})


def globals_read(function) -> frozenset[str]:
    """The global names ``function``'s code reads (its nested code objects' too)."""
    return _globals_read(function.__code__)


@lru_cache(maxsize=None)
def _globals_read(code: types.CodeType) -> frozenset[str]:
    names: set[str] = set()
    codes = [code]
    while codes:
        code = codes.pop()
        names |= {instruction.argval for instruction in dis.get_instructions(code)
                  if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
        codes += [const for const in code.co_consts if isinstance(const, types.CodeType)]
    return frozenset(names)


def rebind(dispatcher, qualname: str | None = None, **names):
    """The Python function of ``dispatcher`` (or a plain function) with some of its globals
    replaced: another copy of it from the same source (``bgsim.fast.families`` makes every copy
    of the game loop this way; ``bgsim.fast.timing`` its stripped kernels).  A name the function
    does not read is an error (a misspelled name would otherwise change nothing, silently).  A new
    ``qualname`` gives the copy its own entries in Numba's disk cache, which keys a function by
    its source file and qualified name: two copies under one name would load each other's machine
    code."""
    function = getattr(dispatcher, "py_func", dispatcher)
    unread = sorted(set(names) - (globals_read(function) & set(function.__globals__)))
    if unread:
        raise NameError(f"{function.__module__}.{function.__name__} reads no global "
                        f"{', '.join(map(repr, unread))}: nothing to replace")
    scope = dict(function.__globals__)
    scope.update(names)
    rebound = types.FunctionType(function.__code__, scope, function.__name__, function.__defaults__,
                                 function.__closure__)
    if qualname is not None:
        rebound.__qualname__ = qualname
    return rebound


def compiled_or_cached(kernel) -> bool:
    """Whether ``kernel`` (a Numba dispatcher) is compiled in this process or kept on disk (the
    index of Numba's cache of it, in ``NUMBA_CACHE_DIR`` when that is set): its first call
    compiles nothing."""
    if kernel.signatures:
        return True
    index = getattr(getattr(getattr(kernel, "_cache", None), "_cache_file", None), "_index_path", None)
    return index is not None and Path(index).exists()


# The sources outside this package whose values the kernels freeze in when they compile: the
# layouts' parameter places and codes, the dice's constant, the Zobrist keys of the board, the
# variants' definitions, the nn net's scales, the bear-off numbering.  Data files (nets, bear-off databases, match equity tables) are not
# among them: the kernels get those as arrays at every call, so an upgrade that changes nothing
# but data keeps the compiled kernels (``tests/test_compile_only_what_a_run_needs.py`` holds
# this list to the kernel modules' imports).
FROZEN_SOURCES = ("layouts.py", "board.py", "dice.py", "variants.py", "net_format.py", "bearoff_numbering.py")


def stamped_sources() -> list[Path]:
    """The files :func:`source_stamp` hashes: this package's Python files and :data:`FROZEN_SOURCES`."""
    here = Path(__file__).resolve().parent
    return sorted(here.glob("*.py")) + [here.parent / name for name in FROZEN_SOURCES]


@lru_cache(maxsize=None)
def source_stamp() -> str:
    """A hash of every source the kernels are compiled from (:func:`stamped_sources`; never a
    data file)."""
    digest = hashlib.sha256()
    for source in stamped_sources():
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()


def cache_folders() -> list[Path]:
    """Where Numba keeps this package's compiled kernels: ``__pycache__`` beside the sources, and
    the folder of ``NUMBA_CACHE_DIR`` for them when that is set (Numba's own naming of it)."""
    from numba.core.caching import UserProvidedCacheLocator

    here = Path(__file__).resolve().parent
    folders = [here / "__pycache__"]
    if numba.config.CACHE_DIR:
        folders.append(Path(numba.config.CACHE_DIR)
                       / UserProvidedCacheLocator.get_suitable_cache_subpath(str(here / "game.py")))
    return folders


def _drop_stale_cache(folders: list[Path] | None = None) -> None:
    stamp = source_stamp()
    for cache in cache_folders() if folders is None else folders:
        marker = cache / "numba-sources.sha256"
        try:
            if marker.exists() and marker.read_text() == stamp:
                continue
            cache.mkdir(parents=True, exist_ok=True)
            for stale in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
                stale.unlink(missing_ok=True)
            marker.write_text(stamp)
        except OSError:
            pass  # a read-only install: Numba then caches elsewhere, keyed on the installed files


_drop_stale_cache()

