"""Every compiled copy of a game loop, made one way (:func:`family`) and declared in one table
(:data:`FAMILIES`).

The loops' sources are ``bgsim/fast/game.py`` (two players) and ``bgsim/fast/chouette.py`` (a box
against a team).  Their loop functions are templates, never compiled as they stand: each reads a
few globals that a family fills in (``bgsim.fast.compile.Slot``), the dispatches it asks
(``choose``, ``choose_double``, ``offer_double``, ``respond``) and its features' flags
(:data:`FLAGS`).  A family compiles a copy of every template of its loop with them filled in
(``bgsim.fast.compile.rebind``, under a name of its own in Numba's disk cache), each template
that calls another calling that family's copy of it.

A row of the table names a family and says:

* its **loop** (:data:`GAME` or :data:`CHOUETTE`);
* **which bots** its dispatch knows: ``EVERY``, every bot of ``bgsim/layouts.py`` (a process that
  plays many different bots compiles it once: validate, the tests, a library call); or ``RUN``,
  the bots a run names, given when the family is asked for (``bgsim.fast.compile_only_for``), so
  that ``random`` vs ``random`` compiles no evaluation, no net, no cube rule, no bear-off player.
  A ``RUN`` family is named after its kernels (:func:`family_key`) and holds every bot that shares
  one of them (a kernel compiled for one code is compiled for all its codes: keith brings thorp);
* **which features**: ``exact`` (an ``EVERY`` family with the bots whose layouts say ``apart``,
  today ``exact``, whose tables and match recursion are a long compile of their own; a ``RUN``
  family holds them when a player uses them), ``variants`` (the variants' rules, ``VARIANT_GAMES``;
  without it not one variant instruction is compiled), ``custom`` (users' evaluation functions in
  front of the checker dispatch, ``bgsim.fast.custom``; never kept on disk, whose index cannot
  tell one user's function from another), ``timing`` (the cycle counter's laps between the loop's
  phases, ``PROFILE``, for ``bgsim.fast.timing``) and ``trace``: ``SHARED``, one copy with the
  trace code that the ``tracing`` argument switches on, or ``APART``, a copy without it for play
  (a run's first compile pays for no trace code) and one with it for traces (``TRACING``).

Everything a row says is checked when the table is read, before anything compiles: a feature the
loop has no flag for, a slot of a loop that no feature fills, a name a template does not read
(``rebind``) is an error naming it.  A family is made when first asked for and Numba compiles
each of its kernels on the first call, so a run compiles only the entries it calls.

Adding a feature: its flag in the loop's source (a ``Slot``, read by the templates), a field of
:class:`Declared` and its entry in :data:`FLAGS` (the flag, and the field's value that leaves the
feature out), and the rows that switch it on.  Adding a family:
a row, and where the engine asks for it (``bgsim.fast._kernels``, ``bgsim.fast.chouette.Table``).
Adding a bot to every family: its layout in ``bgsim/layouts.py`` (``apart`` keeps it out of the
``EVERY`` families without ``exact``).  docs/ARCHITECTURE.md has the how-to.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass

from .. import layouts
from ..layouts import CHECKER, CUBE, FastBot
from . import dispatch
from .compile import Slot, globals_read, kernel_compiler, rebind

EVERY, RUN = "every", "run"
SHARED, APART = "shared", "apart"


@dataclass(frozen=True)
class Loop:
    """A game loop's source: its module in ``bgsim/fast``, its templates compiled as ``jit``
    kernels, then those inlined into their callers (``inline_jit``), then its entries
    (``alloc_jit`` kernels, called from Python; each template after the ones it calls) and, of
    those, the ones that trace."""

    module: str
    kernels: tuple[str, ...]
    entries: tuple[str, ...]
    traces: tuple[str, ...] = ()
    inlined: tuple[str, ...] = ()

    def templates(self) -> dict:
        source = importlib.import_module(f"bgsim.fast.{self.module}")
        found = {}
        for name in self.kernels + self.inlined + self.entries:
            template = getattr(source, name, None)
            if template is None or not callable(template) or hasattr(template, "py_func"):
                raise RuntimeError(f"bgsim/fast/families.py: bgsim/fast/{self.module}.py has no template "
                                   f"{name!r} (a plain function: a family compiles it)")
            found[name] = template
        return found

    def slots(self) -> set[str]:
        """The globals its templates read that a family must fill in (``Slot``)."""
        return {name for template in self.templates().values() for name in globals_read(template)
                if isinstance(template.__globals__.get(name), Slot)}


# play_number is inlined into each entry: LLVM optimizes and emits a kernel again with every kernel
# it links in, so one level fewer is one pass fewer over the whole loop in a cold compile
GAME = Loop("game", kernels=("_variant_choose", "play_one"), inlined=("play_number",),
            entries=("play_batch", "trace_number", "profile_batch"), traces=("trace_number",))
CHOUETTE = Loop("chouette", kernels=("play_game",), entries=("play_session", "trace_one"))

DISPATCH_SLOTS = ("choose", "choose_double", "offer_double", "respond")  # filled from the family's bots
# each feature that a flag of the loop's source says, by its field of Declared: (the flag, the
# field's value that leaves the feature out); TRACING is on for the copy that plays unless
# trace is APART
FLAGS = {"variants": ("VARIANT_GAMES", False), "timing": ("PROFILE", False), "trace": ("TRACING", SHARED)}


@dataclass(frozen=True)
class Declared:
    """One row of :data:`FAMILIES` (module doc); checked when it is made."""

    name: str
    loop: Loop
    bots: str
    exact: bool = False
    variants: bool = False
    custom: bool = False
    timing: bool = False
    trace: str = SHARED
    serves: str = ""  # who plays on it

    def __post_init__(self) -> None:
        where = f"bgsim/fast/families.py: family {self.name!r}"
        if not self.name.isidentifier():
            raise ValueError(f"{where}: a family's name names kernels, so it is an identifier")
        if self.bots not in (EVERY, RUN):
            raise ValueError(f"{where}: bots is EVERY or RUN, not {self.bots!r}")
        if self.exact and self.bots != EVERY:
            raise ValueError(f"{where}: exact is for an EVERY family; a RUN family holds exact when a "
                             f"player uses it")
        if self.trace not in (SHARED, APART):
            raise ValueError(f"{where}: trace is SHARED or APART, not {self.trace!r}")
        slots = self.loop.slots()
        for feature, (flag, off) in FLAGS.items():
            if flag not in slots and getattr(self, feature) != off:
                raise ValueError(f"{where}: bgsim/fast/{self.loop.module}.py has no {flag} flag, so it "
                                 f"cannot be compiled with {feature}={getattr(self, feature)!r}")
        unfilled = slots - set(DISPATCH_SLOTS) - {flag for flag, _ in FLAGS.values()}
        if unfilled:
            raise ValueError(f"{where}: no feature fills the slot(s) {', '.join(sorted(unfilled))} of "
                             f"bgsim/fast/{self.loop.module}.py (FLAGS in bgsim/fast/families.py)")

    def flags(self) -> dict[str, object]:
        """The loop's flags as this row sets them (``TRACING`` for the copy that plays)."""
        slots = self.loop.slots()
        values = {flag: getattr(self, feature) for feature, (flag, _) in FLAGS.items() if flag in slots}
        if "TRACING" in values:
            values["TRACING"] = self.trace == SHARED
        return values

# The families, each compiled only when a run asks for it.  A run that names its players plays
# on the RUN rows; a process that plays whatever it is given (validate, the tests with
# BGSIM_KERNELS=all, a library call) on the EVERY rows, which serve the standard game and the
# variants with one copy (the variants' branches cost the standard game nothing measurable there:
# results/bench/README.md), while a run's copy for the standard game holds none of them.
FAMILIES = {declared.name: declared for declared in (
    Declared("every_bot", GAME, EVERY, variants=True,
             serves="two-player games outside compile_only_for, or with BGSIM_KERNELS=all"),
    Declared("every_bot_with_exact", GAME, EVERY, exact=True, variants=True,
             serves="the same, a player's cube bot exact"),
    Declared("run", GAME, RUN, trace=APART, serves="the games of compile_only_for's bots"),
    Declared("run_variants", GAME, RUN, variants=True, trace=APART, serves="the same in a variant"),
    Declared("custom", GAME, RUN, custom=True, serves="a user's evaluation function (bgsim.fast.custom)"),
    Declared("custom_variants", GAME, RUN, custom=True, variants=True, serves="the same in a variant"),
    Declared("profiled", GAME, RUN, timing=True, trace=APART, serves="bgsim bench --profile (bgsim.fast.timing)"),
    Declared("chouette", CHOUETTE, EVERY, serves="chouettes (bgsim.fast.chouette.Table)"),
    Declared("chouette_with_exact", CHOUETTE, EVERY, exact=True, serves="chouettes with exact"),
)}


@dataclass(frozen=True)
class Family:
    """One family's kernels (Numba dispatchers, compiled on first call), by entry name:
    ``play_batch``, ``trace_number`` and ``profile_batch`` of the game loop, ``play_session`` and
    ``trace_one`` of the chouette's."""

    declared: Declared
    key: str
    bots: tuple[FastBot, ...]
    kernels: dict
    copies: dict  # every template's copy (the one that plays, where trace is APART), by name

    def __getattr__(self, name: str):
        kernels = self.__dict__.get("kernels", {})
        if name in kernels:
            return kernels[name]
        raise AttributeError(f"family {self.__dict__.get('key')!r} has no kernel {name!r} "
                             f"(its entries: {', '.join(kernels)})")


_ROLE_MODULE = {CHECKER: "checker", CUBE: "cube"}  # a kernel there is named by its prefix alone
_MADE: dict[tuple, Family] = {}


def switched_off(bot: FastBot) -> FastBot:
    """``bot``'s layout without the perfect bear-off player in front of its kernel: what a family
    compiles for a checker bot whose every player has the ``bearoff`` switch off (the dispatch would
    only read the switch and go on).  Its parameters and arrays are the bot's own: the players are
    still packed by the full layout, whose switch places come after them."""
    return dataclasses.replace(bot, params=bot.own_params, arrays=bot.own_arrays, bearoff=False)


def widen(bots) -> tuple[FastBot, ...]:
    """Every fast bot (in table order) that shares a kernel with one of ``bots``; a bot given
    both with and without the bear-off player (:func:`switched_off`) keeps it."""
    kernels = {(bot.role, bot.kernel) for bot in bots}
    given = {}
    for bot in bots:
        if (bot.role, bot.name) not in given or bot.bearoff:
            given[(bot.role, bot.name)] = bot
    return tuple(given.get((bot.role, bot.name), bot) for bot in layouts.FAST_BOTS
                 if (bot.role, bot.kernel) in kernels)


def _kernel_name(bot: FastBot) -> str:
    module, prefix = bot.kernel.split(".")
    return prefix if module == _ROLE_MODULE[bot.role] else f"{module}_{prefix}"


def family_key(bots) -> str:
    """The name of the family of ``bots``' kernels: its checker kernels (``_bearoff`` after one
    with the perfect bear-off player in front), ``___``, its cube kernels, each sorted and joined by
    ``__`` (an identifier: it names modules and kernels)."""
    parts = []
    for role in (CHECKER, CUBE):
        names = {_kernel_name(bot) + ("_bearoff" if bot.bearoff else "") for bot in bots if bot.role == role}
        parts.append("__".join(sorted(names)) or "none")
    return "___".join(parts)


def _dispatches(declared: Declared, bots, name: str) -> dict:
    """The dispatch functions over ``bots`` (``bgsim.fast.dispatch.build``) by their slots; an
    ``EVERY`` row's are built at import, shared by the rows with the same bots, the cube bots
    compiled apart in front of the others (so a row with exact compiles only exact anew)."""
    if declared.bots == EVERY:
        cube = ((dispatch.offer_double_with_exact, dispatch.respond_with_exact) if declared.exact
                else (dispatch.offer_double, dispatch.respond))
        return dict(choose=dispatch.choose, choose_double=dispatch.choose_double, offer_double=cube[0],
                    respond=cube[1])
    checker = dispatch.build(CHECKER, bots, ("choose",), f"{name}_checker")
    cube = dispatch.build(CUBE, bots, ("offer_double", "respond"), f"{name}_cube")
    return dict(choose=checker.choose, choose_double=checker.choose_double, offer_double=cube.offer_double,
                respond=cube.respond)


def family(name: str, bots=(), evaluations=None) -> Family:
    """The family of row ``name`` of :data:`FAMILIES`; for a ``RUN`` row, of ``bots`` (layouts,
    widened to the bots sharing their kernels); for a ``custom`` row, with ``evaluations`` (the
    users' functions of white and black, None for a built-in bot).  Made once a process."""
    declared = FAMILIES.get(name) if isinstance(name, str) else None
    if declared is None:
        raise KeyError(f"no game-loop family {name!r} (bgsim/fast/families.py has: {', '.join(FAMILIES)})")
    if declared.bots == EVERY:
        chosen = tuple(bot for bot in layouts.FAST_BOTS if declared.exact or not bot.apart)
        bots_key = key = name
    else:
        chosen = widen(bots)
        bots_key = family_key(chosen)
        key = f"{name}_{bots_key}"
    if declared.custom:
        if evaluations is None or len(evaluations) != 2:
            raise ValueError(f"family {name!r} takes the evaluation functions of white and black")
        evaluations = tuple(evaluations)
    elif evaluations is not None:
        raise ValueError(f"family {name!r} holds no evaluation function")
    made = _MADE.get((key, evaluations))
    if made is None:
        made = _make(declared, key, bots_key, chosen, evaluations)
        _MADE[(key, evaluations)] = made
    return made


def _make(declared: Declared, key: str, bots_key: str, bots, evaluations) -> Family:
    values = {**_dispatches(declared, bots, bots_key), **declared.flags()}
    cache = not declared.custom
    if declared.custom:
        from .custom import choosing

        values["choose"] = choosing(values["choose"], *evaluations)
        key = f"{key}_{'_'.join(getattr(evaluate, '__name__', 'builtin') for evaluate in evaluations)}"
    loop = declared.loop
    kernels = _copies(loop, key, values, cache, [entry for entry in loop.entries
                                                if declared.trace == SHARED or entry not in loop.traces])
    if declared.trace == APART:
        traced = _copies(loop, f"traced_{key}", {**values, "TRACING": True}, cache, list(loop.traces))
        kernels.update({entry: traced[entry] for entry in loop.traces})
    return Family(declared, key, tuple(bots), {entry: kernels[entry] for entry in loop.entries}, kernels)


def _copies(loop: Loop, key: str, values: dict, cache: bool, entries: list[str]) -> dict:
    """Every template of ``loop`` compiled with ``values`` filled in (and the entries named), each
    calling the copies made before it; named ``<template>_<key>``."""
    templates = loop.templates()
    made: dict = {}
    for name in list(loop.kernels) + list(loop.inlined) + entries:
        template = templates[name]
        reads = globals_read(template)
        early = sorted(other for other in reads & set(templates) if other not in made and other != name)
        if early:
            raise RuntimeError(f"bgsim/fast/families.py: {loop.module}.{name} calls {', '.join(early)}, "
                               f"which its Loop lists after it")
        given = {slot: value for slot, value in values.items() if slot in reads}
        given.update({other: made[other] for other in reads & set(made)})
        empty = sorted(slot for slot in reads if isinstance(template.__globals__.get(slot), Slot)
                       and slot not in given)
        if empty:
            raise RuntimeError(f"bgsim/fast/families.py: family {key!r} leaves {loop.module}.{name}'s "
                               f"slot(s) {', '.join(empty)} empty")
        compiler = kernel_compiler(allocates=name in loop.entries, cache=cache, inline=name in loop.inlined)
        made[name] = compiler(rebind(template, f"{name}_{key}", **given))
    return made


def loop_families(module: str) -> list[str]:
    """The rows of :data:`FAMILIES` that compile the loop of ``bgsim/fast/<module>.py``."""
    return [name for name, declared in FAMILIES.items() if declared.loop.module == module]


# What a cold compile takes, in CPU seconds of one core of the bench's machine (``bgsim bench
# --compile-only``: random vs random 15.7, heuristic+pipdiff 18.6 to 23.5, nn+pipdiff vs heuristic
# 24.6, every bot 43 to 48, on a shared machine; about 3 s less each since play_batch is a serial
# kernel on Python's threads): the game loop with the dice and the move generator, then what each
# kernel adds to it (by the layouts' ``kernel``); a chouette's loop on top.  For the message a
# run prints before it (a busy machine takes longer), never for a test.
LOOP_SECONDS = 11.0
KERNEL_SECONDS = {
    "checker.random": 1.0, "checker.racer": 1.5, "checker.heuristic": 2.0, "checker.pubeval": 1.5,
    "checker.nn": 5.0, "checker.nn_ahead": 8.0,
    "cube.always_take": 0.3, "cube.never_take": 0.3, "cube.pipdiff": 1.5, "cube.count": 1.5, "cube.nn": 4.0,
    "race_rules.race_rule": 3.0, "exact.exact": 15.0,
}
BEAROFF_SECONDS = 2.0  # the perfect bear-off player in front of a checker bot with the switch on
SCORE_SECONDS = 1.0  # what the match score decides alone, in front of a score-aware cube bot
CHOUETTE_SECONDS = 15.0
EVERY_BOT_SECONDS = 42.0  # the every_bot family, measured whole: a bigger loop optimizes longer
UNKNOWN_KERNEL_SECONDS = 3.0  # a kernel added to the layouts since the table was measured


def compile_seconds(bots=None, chouette: bool = False) -> float:
    """About how long the first game of ``bots`` (layouts; None: the ``every_bot`` family)
    compiles on the bench's machine, with ``chouette`` a chouette's."""
    if bots is None:
        return EVERY_BOT_SECONDS + (CHOUETTE_SECONDS if chouette else 0.0)
    bots = widen(bots)
    seconds = LOOP_SECONDS + (CHOUETTE_SECONDS if chouette else 0.0)
    seconds += sum(KERNEL_SECONDS.get(kernel, UNKNOWN_KERNEL_SECONDS) for kernel in {bot.kernel for bot in bots})
    seconds += BEAROFF_SECONDS if any(bot.bearoff for bot in bots) else 0.0
    seconds += SCORE_SECONDS if any(bot.score_aware for bot in bots) else 0.0
    return seconds
