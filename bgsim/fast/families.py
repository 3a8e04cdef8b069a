"""The game kernels of a run that said which bots it seats: compiled for those bots' kernels only.

``bgsim.fast.game``'s kernels ask the dispatch of every bot of ``bgsim/layouts.py`` but ``exact``
(``bgsim.fast.dispatch``), so their first compile pays for the net, the race rules, the match
cube, the bear-off player and the cube bots whether a run uses them or not.  A run that knows
its players (``bgsim play``, ``bgsim run``, ``bgsim rollout``: ``bgsim.fast.compile_only_for``)
plays on a family of its own instead: the same game loop from the same source (``rebind``),
asking a dispatch generated for the kernels of its bots alone (``bgsim.fast.dispatch.build``),
so that ``random`` vs ``random`` compiles no evaluation, no cube bot but ``none``'s answer, no
bear-off player.  Every answer is the one the full dispatch gives for those codes (the same
kernels, called the same way), so every row is the same.

A family is named after its kernels (:func:`family_key`): the checker kernels, then the cube
kernels, e.g. ``random___always_take``, and it holds every bot that shares one of them (a kernel
compiled for one code is compiled for all its codes: keith brings thorp); a checker bot's
perfect bear-off player is in it only when a player of the block switches it on (``_bearoff``
after the kernel's name).  Its dispatch is the
file ``dispatch_<source stamp>_<key>_checker.py`` (and ``_cube``) and Numba keeps its game
kernels on disk under names ending in the key (``play_batch_<key>``), so each set of kernels is
compiled once and then loaded, and an edit of any kernel source compiles it anew.  ``exact``
is a cube kernel like the others here; a variant plays on the family's variant copy
(``VARIANT_GAMES`` on, as ``bgsim.fast.with_variants``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import layouts
from ..layouts import CHECKER, CUBE, FastBot
from . import dispatch, game
from .compile import alloc_jit, jit, rebind

_ROLE_MODULE = {CHECKER: "checker", CUBE: "cube"}  # a kernel there is named by its prefix alone


@dataclass(frozen=True)
class Family:
    """The compiled game kernels of one set of kernels (module doc)."""

    key: str
    variants: bool
    play_batch: object
    trace_number: object
    bots: tuple[FastBot, ...]


_FAMILIES: dict[tuple[str, bool], Family] = {}


def switched_off(bot: FastBot) -> FastBot:
    """``bot``'s layout without the perfect bear-off player in front of its kernel: what a family
    compiles for a checker bot whose every player has the ``bearoff`` switch off (the dispatch would
    only read the switch and go on).  Its parameters and arrays are the bot's own: the players are
    still packed by the full layout, whose switch places come after them."""
    return FastBot(bot.name, bot.role, bot.code, params=bot.own_params, arrays=bot.own_arrays, kernel=bot.kernel,
                   bearoff=False, score_aware=bot.score_aware, variants=bot.variants, chouette=bot.chouette,
                   apart=bot.apart)


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


def family(bots, variants: bool = False) -> Family:
    """The game kernels for ``bots`` (layouts; widened to the bots sharing their kernels), the
    variants' copy with ``variants``; built once a process, compiled on first use."""
    bots = widen(bots)
    key = family_key(bots)
    if (key, variants) in _FAMILIES:
        return _FAMILIES[(key, variants)]
    checker = dispatch.build(CHECKER, bots, ("choose",), f"{key}_checker")
    cube = dispatch.build(CUBE, bots, ("offer_double", "respond"), f"{key}_cube")
    name = f"{key}_variants" if variants else key
    names = dict(choose=checker.choose, choose_double=checker.choose_double, offer_double=cube.offer_double,
                 respond=cube.respond)
    if variants:
        # the variants' loop asks the checker bots through _variant_choose: it must ask this dispatch
        names.update(VARIANT_GAMES=True, _variant_choose=jit(rebind(game._variant_choose, f"_variant_choose_{name}",
                                                                     choose=checker.choose)))
    # a run plays without the trace code; a trace (bgsim trace, validate's explanations) on a copy with it
    play_one = jit(rebind(game.play_one, f"play_one_{name}", TRACING=False, **names))
    play_number = jit(rebind(game.play_number, f"play_number_{name}", play_one=play_one))
    play_batch = alloc_jit(rebind(game.play_batch, f"play_batch_{name}", play_number=play_number))
    traced_one = jit(rebind(game.play_one, f"play_one_traced_{name}", **names))
    traced_number = jit(rebind(game.play_number, f"play_number_traced_{name}", play_one=traced_one))
    trace_number = alloc_jit(rebind(game.trace_number, f"trace_number_{name}", play_number=traced_number))
    built = Family(key, variants, play_batch, trace_number, bots)
    _FAMILIES[(key, variants)] = built
    return built


# What a cold compile takes, in CPU seconds of one core of the bench's machine (``bgsim bench
# --compile-only``: random vs random 15.7, heuristic+pipdiff 18.6 to 23.5, nn+pipdiff vs heuristic
# 24.6, every bot 43 to 48, on a shared machine; about 3 s less each since play_batch is a serial
# kernel on Python's threads): the game loop with the dice and the move generator, then what each
# kernel adds to it (by the layouts' ``kernel``); a chouette's loop on top.  For the message a
# run prints before it (a busy machine takes longer), never for a test.
LOOP_SECONDS = 11.0
KERNEL_SECONDS = {
    "checker.random": 1.0, "checker.racer": 1.5, "checker.heuristic": 2.0, "checker.pubeval": 1.5,
    "checker.nn": 5.0,
    "cube.always_take": 0.3, "cube.never_take": 0.3, "cube.pipdiff": 1.5, "cube.count": 1.5, "cube.nn": 4.0,
    "race_rules.race_rule": 3.0, "exact.exact": 15.0,
}
BEAROFF_SECONDS = 2.0  # the perfect bear-off player in front of a checker bot with the switch on
SCORE_SECONDS = 1.0  # what the match score decides alone, in front of a score-aware cube bot
CHOUETTE_SECONDS = 15.0
EVERY_BOT_SECONDS = 42.0  # bgsim.fast.game's kernels, measured whole: a bigger loop optimizes longer
UNKNOWN_KERNEL_SECONDS = 3.0  # a kernel added to the layouts since the table was measured


def compile_seconds(bots=None, chouette: bool = False) -> float:
    """About how long the first game of ``bots`` (layouts; None: every bot but ``exact``, the
    kernels of ``bgsim.fast.game``) compiles on the bench's machine, with ``chouette`` a chouette's."""
    if bots is None:
        return EVERY_BOT_SECONDS + (CHOUETTE_SECONDS if chouette else 0.0)
    bots = widen(bots)
    seconds = LOOP_SECONDS + (CHOUETTE_SECONDS if chouette else 0.0)
    seconds += sum(KERNEL_SECONDS.get(kernel, UNKNOWN_KERNEL_SECONDS) for kernel in {bot.kernel for bot in bots})
    seconds += BEAROFF_SECONDS if any(bot.bearoff for bot in bots) else 0.0
    seconds += SCORE_SECONDS if any(bot.score_aware for bot in bots) else 0.0
    return seconds
