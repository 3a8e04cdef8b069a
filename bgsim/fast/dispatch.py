"""The kernels' dispatch, generated from the table of ``bgsim/layouts.py``: adding a bot edits none.

``choose`` (checker bots) and ``offer_double`` / ``respond`` (cube bots) branch on the seat's
code to the kernels its layout names (``kernel="module.prefix"``: ``prefix_choose``, or
``prefix_offers`` and ``prefix_answer``, in ``bgsim/fast/module.py``), and put in front of them
what the bot's capabilities say (their contract: ``bgsim/layouts.py``): the perfect bear-off
player for ``bearoff`` (``bgsim.fast.checker.bearoff_first``), the score's forced offers for
``score_aware`` (``bgsim.fast.match_cube.forced_at_score``), at the places of the bot's layout.

The checker dispatch also asks acey-deucey's question after a 1-2, ``choose_double``: the double
(1..6) of the bot's ``<prefix>_double`` kernel, for the bots whose layout lists acey-deucey among
its ``variants`` (no bear-off switch in front: ``bots.checker.CheckerBot.choose_double`` has none).

A code without a layout answers ``NO_KERNEL``: the game loop turns it into an error row, never a
default bot.  Bots that share a kernel (and, for cube bots, the place of their ``score_aware``)
share a branch (``code == 4 or code == 5``), so an inlined kernel is compiled once.

The source is written to a file and imported from there (``build``), so that Numba's disk cache
keeps the dispatch's machine code like any kernel's: ``__pycache__/dispatch_<stamp>_<family>.py``
of this package, ``<stamp>`` from ``bgsim.fast.compile.source_stamp`` (a hash of every kernel
source and of the layouts).  A change of any of them gives a new file name, never stale machine
code; a file is written once and then only read.  Built here, at import, for every bot:
``choose`` and ``choose_double``, ``offer_double`` and ``respond`` without the cube bots compiled
``apart``, and ``offer_double_with_exact`` / ``respond_with_exact``, which ask those bots and hand
every other code to ``offer_double`` / ``respond`` (so a family with exact compiles only exact
anew).  ``build`` takes any selection of bots: a ``RUN`` family of ``bgsim/fast/families.py``
builds the dispatch of its bots alone.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path

from .. import layouts
from ..layouts import CHECKER, CUBE, FastBot
from ..variants import ACEY_DEUCEY
from .compile import source_stamp

NO_KERNEL = -1  # the answer of every question for a code without a layout

_CHECKER_ARGUMENTS = ("code, params, offsets, float64s, int32s, int64s, board, plays, keys, count, order, "
                      "streams, row")
# acey-deucey's double after a 1-2 (bgsim.fast.variants.best_double generates the doubles' plays)
_DOUBLE_ARGUMENTS = ("code, params, offsets, float64s, int32s, int64s, board, plays, keys, slots, table, order, "
                     "streams, row")
DOUBLE_QUESTION = "double"
_CUBE_ARGUMENTS = "code, params, offsets, float64s, int32s, int64s, board, view"


def _constant(bot: FastBot, what: str) -> str:
    return f"{bot.name}_{what}".upper().replace("-", "_")


QUESTIONS = {CHECKER: ("choose",), CUBE: ("offers", "answer")}  # each role's kernels, by suffix
_NAMES = {CHECKER: ("choose",), CUBE: ("offer_double", "respond")}  # each role's dispatch functions


def kernel_of(bot: FastBot, question: str) -> tuple[str, str, str]:
    """(module, function, the name the generated source imports it as) of ``bot``'s kernel for
    ``question`` (one of :data:`QUESTIONS`)."""
    module, prefix = bot.kernel.split(".")
    function = f"{prefix}_{question}"
    return f"bgsim.fast.{module}", function, f"{module}_{function}"


def questions(bot: FastBot) -> tuple[str, ...]:
    """The kernels ``bot``'s layout promises: its role's, and a checker bot that plays
    acey-deucey its double."""
    if bot.role == CHECKER and ACEY_DEUCEY in bot.variants:
        return QUESTIONS[bot.role] + (DOUBLE_QUESTION,)
    return QUESTIONS[bot.role]


def _check_kernels(bot: FastBot) -> None:
    for question in questions(bot):
        module, function, _ = kernel_of(bot, question)
        if not hasattr(importlib.import_module(module), function):
            raise ImportError(f"bgsim/layouts.py: {bot.role} bot {bot.name!r} names the kernel "
                              f"{module}.{function}, which does not exist")


def _places(bot: FastBot) -> tuple[tuple[str, int], ...]:
    """What the dispatch reads of ``bot``'s capabilities: (constant name, parameter or array place)."""
    if bot.bearoff:
        return (("BEAROFF", bot.param("bearoff")), ("BEAROFF_CHECKERS", bot.param("bearoff_checkers")),
                ("BEAROFF_ONE_SIDED", bot.array("bearoff_one_sided")), ("BEAROFF_WIN", bot.array("bearoff_win")))
    if bot.score_aware:
        return (("SCORE_AWARE", bot.param("score_aware")),)
    return ()


def _groups(bots, key) -> list[list[FastBot]]:
    """Bots in table order, those with the same ``key`` together."""
    groups: dict[tuple, list[FastBot]] = {}
    for bot in bots:
        groups.setdefault(key(bot), []).append(bot)
    return list(groups.values())


def _test(group: list[FastBot]) -> str:
    names = ", ".join(bot.name for bot in group)
    return " or ".join(f"code == {bot.code}" for bot in group) + f":  # {names}"


def source(role: str, bots, names: tuple[str, ...], otherwise: str = "") -> str:
    """The Python source of one role's dispatch over ``bots`` (their layouts), its functions
    named ``names``: ``(choose,)`` for checker bots, ``(offer_double, respond)`` for cube bots.
    With ``otherwise`` (the module of another dispatch of the role), a code none of ``bots`` has
    is handed to that dispatch's functions, compiled once for both, instead of ``NO_KERNEL``."""
    bots = [bot for bot in bots if bot.role == role]
    imports = {"from bgsim.fast.compile import jit"}
    constants = []
    bodies = {name: [] for name in names}
    for bot in bots:
        _check_kernels(bot)
        constants.extend(f"{_constant(bot, key)} = {place}" for key, place in _places(bot))
    if role == CHECKER:
        # the bots without the bear-off switch first (random returns before any bear-off check);
        # then, as the hand-written dispatch had it, one choice of the switch's places and one
        # call of the bear-off player; then the kernels, each once for all the bots that share it
        body = bodies[names[0]]
        plain = [bot for bot in bots if not bot.bearoff]
        switched = [bot for bot in bots if bot.bearoff]
        for group in _groups(plain, lambda bot: bot.kernel):
            module, function, alias = kernel_of(group[0], "choose")
            imports.add(f"from {module} import {function} as {alias}")
            body += [f"    if {_test(group)}", f"        return {alias}({_CHECKER_ARGUMENTS})"]
        if switched:
            imports.add("from bgsim.fast.checker import bearoff_first")
            body.append("    perfect = _bearoff(code, params, offsets, float64s, board, plays, keys, count)")
            body += ["    if perfect >= 0:", "        return perfect"]
            helper = ["", "", "@jit", "def _bearoff(code, params, offsets, float64s, board, plays, keys, count):"]
            for number, bot in enumerate(switched):
                given = ", ".join(_constant(bot, key) for key, _ in _places(bot))
                helper += [f"    {'if' if number == 0 else 'elif'} code == {bot.code}:  # {bot.name}",
                           f"        flag, size_at, one_at, win_at = {given}"]
            helper += ["    else:", "        return -1",
                       "    return bearoff_first(flag, size_at, one_at, win_at, params, offsets, float64s, board, "
                       "plays, keys, count)"]
        for group in _groups(switched, lambda bot: bot.kernel):
            module, function, alias = kernel_of(group[0], "choose")
            imports.add(f"from {module} import {function} as {alias}")
            body += [f"    if {_test(group)}", f"        return {alias}({_CHECKER_ARGUMENTS})"]
    else:
        for group in _groups(bots, lambda bot: (bot.kernel, _places(bot))):
            first = group[0]
            module, offers, offers_alias = kernel_of(first, "offers")
            _, answer, answer_alias = kernel_of(first, "answer")
            imports.add(f"from {module} import {offers} as {offers_alias}, {answer} as {answer_alias}")
            imports.add("from bgsim.fast.cube import DOUBLE, NO_DOUBLE")
            body = bodies[names[0]]
            body.append(f"    if {_test(group)}")
            if first.score_aware:
                imports.add("from bgsim.fast.match_cube import FORCE_DOUBLE, NO_FORCE, forced_at_score")
                flag = _constant(first, "score_aware")
                body.append(f"        forced = forced_at_score(params[{flag}], view)")
                body.append("        if forced != NO_FORCE:")
                body.append("            return DOUBLE if forced == FORCE_DOUBLE else NO_DOUBLE")
            body.append(f"        return DOUBLE if {offers_alias}({_CUBE_ARGUMENTS}) else NO_DOUBLE")
            bodies[names[1]].append(f"    if {_test(group)}")
            bodies[names[1]].append(f"        return {answer_alias}({_CUBE_ARGUMENTS})")
    doubles = []
    if role == CHECKER:
        doubles = ["", "", "@jit", f"def choose_double({_DOUBLE_ARGUMENTS}):"]
        for group in _groups([bot for bot in bots if ACEY_DEUCEY in bot.variants], lambda bot: bot.kernel):
            module, function, alias = kernel_of(group[0], DOUBLE_QUESTION)
            imports.add(f"from {module} import {function} as {alias}")
            doubles += [f"    if {_test(group)}", f"        return {alias}({_DOUBLE_ARGUMENTS})"]
        doubles.append("    return NO_KERNEL")
    arguments = _CHECKER_ARGUMENTS if role == CHECKER else _CUBE_ARGUMENTS
    others = _NAMES[role]
    if otherwise:
        imports.add(f"from {otherwise} import " + ", ".join(f"{other} as otherwise_{other}" for other in others))
    lines = ['"""Generated by bgsim.fast.dispatch from bgsim/layouts.py; rewritten, never edited."""', ""]
    lines += sorted(imports) + ["", f"NO_KERNEL = {NO_KERNEL}"] + sorted(set(constants))
    if role == CHECKER and any(bot.bearoff for bot in bots):
        lines += helper
    for name, other in zip(names, others):
        last = f"    return otherwise_{other}({arguments})" if otherwise else "    return NO_KERNEL"
        lines += ["", "", "@jit", f"def {name}({arguments}):"] + bodies[name] + [last]
    return "\n".join(lines + doubles) + "\n"


def _directory() -> Path:
    here = Path(__file__).resolve().parent / "__pycache__"
    try:
        here.mkdir(exist_ok=True)
        if os.access(here, os.W_OK):
            return here
    except OSError:
        pass
    from ..bearoff.store import cache_dir  # a read-only install: the user's cache folder

    there = cache_dir() / "kernels"
    there.mkdir(parents=True, exist_ok=True)
    return there


def build(role: str, bots, names: tuple[str, ...], family: str, directory: Path | None = None,
          otherwise: str = ""):
    """The module of one generated dispatch (module doc), written once to ``directory`` (default:
    this package's ``__pycache__``) and imported from there as ``bgsim.fast._dispatch_<family>``;
    ``otherwise``: see :func:`source`."""
    text = source(role, bots, names, otherwise)
    directory = _directory() if directory is None else Path(directory)
    stamp = source_stamp()[:20]
    path = directory / f"dispatch_{stamp}_{family}.py"
    if not path.exists() or path.read_text() != text:
        # written whole, so that a process importing it at the same moment never reads half a file
        handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.replace(temporary, path)
    for stale in directory.glob(f"dispatch_*_{family}.py"):  # an older stamp's, and its machine code
        if stale != path and stale.name == f"dispatch_{stale.name[9:29]}_{family}.py":
            for cached in [stale] + list((directory / "__pycache__").glob(f"{stale.stem}.*")):
                cached.unlink(missing_ok=True)
    # Numba finds the module of a cached kernel's globals by name: it must be importable as such
    name = f"bgsim.fast._dispatch_{family}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


for _bot in layouts.FAST_BOTS:
    if _bot.apart and _bot.role != CUBE:  # the families compile no checker dispatch apart (yet)
        raise ImportError(f"bgsim/layouts.py: {_bot.role} bot {_bot.name!r} says apart, which only a cube bot "
                          f"can be (bgsim/fast/dispatch.py builds the cube dispatch with exact apart)")
_checker = build(CHECKER, layouts.FAST_BOTS, ("choose",), "checker")
choose, choose_double = _checker.choose, _checker.choose_double
_cube = build(CUBE, [bot for bot in layouts.FAST_BOTS if not bot.apart], ("offer_double", "respond"), "cube")
offer_double, respond = _cube.offer_double, _cube.respond
# the bots compiled apart, then the common dispatch (so a run with exact compiles only exact anew)
_with_exact = build(CUBE, [bot for bot in layouts.FAST_BOTS if bot.apart],
                    ("offer_double_with_exact", "respond_with_exact"), "cube_with_exact", otherwise=_cube.__name__)
offer_double_with_exact, respond_with_exact = _with_exact.offer_double_with_exact, _with_exact.respond_with_exact
