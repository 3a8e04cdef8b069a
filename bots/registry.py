"""The bots, and player specs: ``CHECKER`` or ``CHECKER+CUBE``, each ``name`` or ``name(key=value,...)``.

**The registry.**  Every module of the ``bots`` package that holds bots lists them in a module
constant ``BOTS`` (checker and cube bots alike: a class's base says which it is), assigned at
its top level, and the registry imports every module of the package whose source assigns it:
a new family module is found without an entry here.  ``bgsim bots`` lists them in the order
of :data:`LISTED_FIRST`, then any other module by name, each module's ``BOTS`` in its order.

``make_player("heuristic+pipdiff(double=8%,redouble=9%,take=12%)")`` builds a
:class:`BotPlayer`.  Its ``name`` is the canonical spec: bot names with only the parameters that
differ from their defaults, in declaration order, so equal players have equal names
(``racer+pipdiff(double=8%)`` is ``racer+pipdiff``).  A bare CHECKER gets the ``none`` cube:
never doubles, always takes.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
import sys
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Iterable, Sequence

from bgsim.board import Position
from bgsim.cube import CubeView, Response, TurnCube
from bgsim.dice import RandomStream
from bgsim.rules import Play
from bgsim.variants import STANDARD, variant_of

from .checker import CheckerBot
from .cube import CubeBot, NoCube
from .params import Bot, SpecError, format_value

_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
_KEY = re.compile(r"^[a-z_][a-z0-9_]*$")


CHECKER, CUBE = "checker", "cube"  # the two roles, as in bgsim.layouts
# the order of the listing; a module of bots/ that is not named here follows them, by name
LISTED_FIRST = ("checker", "heuristic", "pubeval", "cube", "race_rules", "exact", "nn", "gnubg_bots")


def registry_of(modules: Iterable[ModuleType]) -> dict[str, dict[str, type[Bot]]]:
    """``{role: {name: bot class}}`` of the ``BOTS`` of ``modules``, in their order; a bot that
    is neither a checker bot nor a cube bot, or a name two bots of one role share, is an error."""
    registry: dict[str, dict[str, type[Bot]]] = {CHECKER: {}, CUBE: {}}
    homes: dict[tuple[str, str], str] = {}
    for module in modules:
        for bot in getattr(module, "BOTS", ()):
            if isinstance(bot, type) and issubclass(bot, CheckerBot):
                role = CHECKER
            elif isinstance(bot, type) and issubclass(bot, CubeBot):
                role = CUBE
            else:
                raise TypeError(f"{module.__name__}.BOTS: {bot!r} is neither a CheckerBot nor a CubeBot")
            if not _NAME.match(bot.name):
                raise TypeError(f"{module.__name__}.BOTS: {bot.__name__} has no bot name (lower-case "
                                "letters, digits and '-')")
            if (role, bot.name) in homes:
                raise TypeError(f"two {role} bots are named {bot.name!r}: in {homes[role, bot.name]} and "
                                f"{module.__name__}")
            homes[role, bot.name] = module.__name__
            registry[role][bot.name] = bot
    return registry


_HOLDS_BOTS = re.compile(r"^BOTS\b", re.MULTILINE)


def family_modules() -> list[ModuleType]:
    """Every module of the ``bots`` package that holds bots, in the order of the listing."""
    # the package is loaded before any module of it: read, not imported (bots imports this module)
    package = sys.modules[__package__]
    names = sorted(info.name for info in pkgutil.iter_modules(package.__path__) if _holds_bots(package, info.name))
    ordered = [name for name in LISTED_FIRST if name in names]
    ordered += [name for name in names if name not in LISTED_FIRST]
    return [importlib.import_module(f"{__package__}.{name}") for name in ordered]


def _holds_bots(package: ModuleType, name: str) -> bool:
    """Whether the module's source assigns ``BOTS`` at its top level.  Why read it: the others
    (the UBGI controller and server, the contexts, the parameters) are large and hold no bots,
    and importing them would slow every player's start."""
    spec = importlib.util.find_spec(f"{package.__name__}.{name}")
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return True  # no source to read: import it and see
    with open(spec.origin, encoding="utf-8") as source:
        return bool(_HOLDS_BOTS.search(source.read()))


@lru_cache(maxsize=None)
def _registry() -> dict[str, dict[str, type[Bot]]]:
    return registry_of(family_modules())


def checker_bots() -> dict[str, type[CheckerBot]]:
    return dict(_registry()[CHECKER])  # type: ignore[arg-type]


def cube_bots() -> dict[str, type[CubeBot]]:
    return dict(_registry()[CUBE])  # type: ignore[arg-type]


def fast_names(role: str) -> dict[str, str]:
    """The registered bots of ``role`` that have a fast kernel, in the order of the listing, each
    with the fast layout it plays by default: its own name, but for a bot that plays another's
    layout with other arrays (``nn-v1`` plays ``nn``'s with the older net)."""
    return {name: bot.fast_name for name, bot in _registry()[role].items() if bot.fast_name}


def layout_spec(role: str, layout: str, arguments: str = "") -> str:
    """A spec of the registered bot that plays fast layout ``layout``: its own name, or the bot
    whose parameters take it (``fast_alternatives``), with ``arguments`` added
    (``layout_spec("checker", "nn-ahead", "bearoff=true")`` is ``nn(plies=1,keep=2,bearoff=true)``)."""
    for name, bot in _registry()[role].items():
        given = [arguments] if arguments else []
        if bot.fast_name == layout:
            return f"{name}({','.join(given)})" if given else name
        if layout in bot.fast_alternatives:
            return f"{name}({','.join([bot.fast_alternatives[layout]] + given)})"
    raise KeyError(f"no registered {role} bot plays the fast layout {layout!r}")


def switched_spec(role: str, name: str, money: bool) -> str | None:
    """The spec of bot ``name`` with every capability its layout declares (``bgsim/layouts.py``)
    switched from its default (``bearoff=true``, ``score_aware=false``): with ``money``, only
    those that change a money game.  None when there is none to switch."""
    from bgsim.layouts import fast_bots

    bot = _registry()[role][name]
    defaults = {param.key: param.default for param in bot.PARAMS}
    switched = [f"{switch.name}={format_value(not defaults[switch.name])}"
                for switch in fast_bots(role)[bot.fast_name].switches if switch.in_money or not money]
    return f"{name}({','.join(switched)})" if switched else None


class BotPlayer:
    """A checker bot and a cube bot at one seat: the :class:`bgsim.decisions.Player` protocol.

    In a variant the bots are shown every position as one of the standard game
    (``Position.as_standard``: checkers in hand on the bar), the plays in their canonical order,
    and the play a checker bot picks is handed back as the variant's own play at that index; a
    bot that reads a variant's own positions says so (``sees_variants = True``: ``exact``, which
    knows hypergammon exactly) and is handed them as they are.  A checker bot that plays for the
    cube (``see_cube``) is told the cube before each play (``bgsim.decisions.Player``).
    """

    def __init__(self, checker: CheckerBot, cube: CubeBot | None = None) -> None:
        self.checker = checker
        self.cube = cube if cube is not None else NoCube()
        self.name = checker.spec if isinstance(self.cube, NoCube) else f"{checker.spec}+{self.cube.spec}"
        # bots that weigh a play by the cube and score (bots/context.py) are told them by the
        # game loop; a seat without such a bot has no hook, so the game loop asks nothing more
        self._seeing = [bot for bot in (self.checker, self.cube) if hasattr(bot, "see")]
        if self._seeing:
            self.see_context = self._see_context

    def _see_context(self, context) -> None:
        from .context import state_of

        state = state_of(context)
        for bot in self._seeing:
            bot.see(state)

    def check_variant(self, variant: str) -> None:
        """SpecError (one line) when a bot of this seat cannot play ``variant``; a cube bot only
        where the variant has a cube."""
        rules = variant_of(variant)
        for bot in (self.checker, self.cube) if rules.cube else (self.checker,):
            if rules.name in getattr(bot, "refused_variants", ()):
                note = getattr(bot, "variant_note", "")
                raise SpecError(f"{bot.name} cannot play {rules.name}" + (f": {note}" if note else ""))
            check = getattr(bot, "check_variant", None)  # a bot that needs something for it (exact: a solution)
            if check is not None:
                check(rules.name)
        if rules.acey_deucey and type(self.checker).choose_double is CheckerBot.choose_double:
            raise SpecError(f"{self.checker.name} cannot play acey-deucey: it does not choose the double "
                            f"after a 1-2 (CheckerBot.choose_double)")

    def choose_play(self, position: Position, roll: tuple[int, int], plays: Sequence[Play],
                    random: RandomStream) -> Play:
        if position.variant == STANDARD or getattr(self.checker, "sees_variants", False):
            return self.checker.choose(position, roll, plays, random)
        seen = _as_standard(plays)
        return _same_index(self.checker.choose(position.as_standard(), roll, seen, random), seen, plays)

    def choose_double(self, position: Position, options: Sequence[Sequence[Play]], random: RandomStream) -> int:
        return self.checker.choose_double(position.as_standard(), _StandardOptions(options), random)

    def offer_double(self, position: Position, cube: CubeView) -> bool:
        return bool(self.cube.offer_double(_shown(self.cube, position), cube))

    def respond_to_double(self, position: Position, cube: CubeView) -> Response:
        return self.cube.respond(_shown(self.cube, position), cube)

    def see_cube(self, cube: TurnCube) -> None:
        see = getattr(self.checker, "see_cube", None)
        if see is not None:
            see(cube)

    @property
    def fast_names(self) -> tuple[str, str]:
        """(checker, cube) fast-engine names; "" for a bot only the reference engine runs."""
        return getattr(self.checker, "fast_name", ""), getattr(self.cube, "fast_name", "")

    def __repr__(self) -> str:
        return f"<BotPlayer {self.name}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BotPlayer) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)


def _shown(bot, position: Position) -> Position:
    """What ``bot`` is shown of ``position``: the variant's own position if it reads them."""
    return position if getattr(bot, "sees_variants", False) else position.as_standard()


def _as_standard(plays: Sequence[Play]) -> list[Play]:
    return [Play(play.moves, play.result.as_standard()) for play in plays]


def _same_index(chosen, seen: list[Play], plays: Sequence[Play]):
    """The variant's play at the index of ``chosen`` among ``seen``; what is not one of them goes
    back as it came, for the game loop to refuse as illegal."""
    for index, play in enumerate(seen):
        if play is chosen:
            return plays[index]
    return chosen


class _StandardOptions(SequenceABC):
    """Acey-deucey's six lists of double plays, each shown as standard positions when first read."""

    def __init__(self, options: Sequence[Sequence[Play]]) -> None:
        self.options = options
        self.seen: dict[int, list[Play]] = {}

    def __len__(self) -> int:
        return len(self.options)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        index = range(len(self))[index]
        if index not in self.seen:
            self.seen[index] = _as_standard(self.options[index])
        return self.seen[index]


def split_top_level(text: str, separator: str) -> list[str]:
    """Split on ``separator`` outside parentheses; unbalanced parentheses are a SpecError."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise SpecError(f"unbalanced ')' in {text!r}")
        elif char == separator and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    if depth != 0:
        raise SpecError(f"unclosed '(' in {text!r}")
    parts.append(text[start:])
    return parts


def parse_bot(text: str) -> tuple[str, dict[str, str]]:
    """``name`` or ``name(key=value,...)`` -> (name, raw values)."""
    text = text.strip()
    if not text:
        raise SpecError("empty bot name")
    if "(" in text:
        if not text.endswith(")"):
            raise SpecError(f"{text!r}: parameters go in parentheses at the end, e.g. pipdiff(double=10)")
        name, inner = text[:-1].split("(", 1)
        name = name.strip()
        if "(" in inner or ")" in inner:
            raise SpecError(f"{text!r}: nested parentheses")
    else:
        name, inner = text, None
    if not _NAME.match(name):
        raise SpecError(f"{name!r} is not a bot name (lower-case letters, digits and '-')")
    values: dict[str, str] = {}
    if inner is not None and inner.strip():
        for item in inner.split(","):
            if "=" not in item:
                raise SpecError(f"{name}: parameter {item.strip()!r} is not key=value")
            key, value = (part.strip() for part in item.split("=", 1))
            if not _KEY.match(key):
                raise SpecError(f"{name}: {key!r} is not a parameter name")
            if not value:
                raise SpecError(f"{name}: {key} has no value")
            if key in values:
                raise SpecError(f"{name}: {key} given twice")
            values[key] = value
    return name, values


def _build(kind: str, registry: dict[str, type[Bot]], text: str) -> Bot:
    name, values = parse_bot(text)
    if name not in registry:
        raise SpecError(f"unknown {kind} bot {name!r} (known: {', '.join(registry)})")
    return registry[name].from_text(values)


def make_checker(text: str) -> CheckerBot:
    return _build("checker", checker_bots(), text)  # type: ignore[return-value]


def make_cube(text: str) -> CubeBot:
    return _build("cube", cube_bots(), text)  # type: ignore[return-value]


def make_player(spec: str, engines=None, log=None) -> BotPlayer:
    """Build a player from ``CHECKER`` or ``CHECKER+CUBE``; SpecError names what is wrong.

    ``ubgi:NAME`` and ``ubgi:NAME+CUBE`` are external engines (``bots.ubgi``): NAME is looked up
    in ``engines`` (name -> ``bots.ubgi.EngineSpec``), else in the engines this process
    declared (``bots.ubgi.declare``); ``log`` is their engine log."""
    if isinstance(spec, BotPlayer) or getattr(spec, "external", False):
        return spec
    if not isinstance(spec, str):
        raise SpecError(f"a player spec is text like 'heuristic+pipdiff', got {spec!r}")
    if spec.strip().startswith("ubgi:"):
        return make_engine_player(spec, engines, log)
    parts = split_top_level(spec.strip(), "+")
    if len(parts) > 2:
        raise SpecError(f"{spec!r}: a player is CHECKER or CHECKER+CUBE, found {len(parts)} parts")
    if any(not part.strip() for part in parts):
        raise SpecError(f"{spec!r}: empty part around '+'")
    checker = make_checker(parts[0])
    cube = make_cube(parts[1]) if len(parts) == 2 else NoCube()
    return BotPlayer(checker, cube)


# --- external engines (bots.ubgi) ------------------------------------------------------------


def make_engine_player(spec: str, engines=None, log=None):
    """``ubgi:NAME`` or ``ubgi:NAME+CUBE`` as a player (nothing started yet); SpecError names
    an engine no engines file declares, or a cube bot that is not one."""
    from .ubgi import _DECLARED, _DECLARED_LOG, PREFIX, UbgiPlayer

    table = _DECLARED if engines is None else engines
    log = _DECLARED_LOG[0] if log is None and engines is None else log
    text = spec.strip()[len(PREFIX):]
    parts = split_top_level(text, "+")
    if len(parts) > 2 or not all(part.strip() for part in parts):
        raise SpecError(f"{spec!r}: an engine player is ubgi:NAME or ubgi:NAME+CUBE (a bgsim cube bot)")
    name = parts[0].strip()
    if name not in table:
        known = ", ".join(sorted(table)) or "none is declared"
        raise SpecError(f"{spec!r}: no engine named {name!r} in the engines files (known: {known}; "
                        "declare [engines.NAME] in --engines FILE, the experiment file or the user's "
                        "bgsim/engines.toml: docs/UBGI.md)")
    cube = make_cube(parts[1]) if len(parts) == 2 else None
    return UbgiPlayer(table[name], cube, log)


@dataclass(frozen=True)
class EnginePlayers:
    """A player factory for commands and Dask workers that seat engines: ``ubgi:`` specs from
    ``engines`` (with ``log``), every other spec by ``bots.make_player``.  Picklable and
    hashable, so each worker builds (and starts) its own engines."""

    engines: tuple = ()  # (name, bots.ubgi.EngineSpec) pairs
    log: object = None  # a bots.ubgi.EngineLog

    def __call__(self, spec):
        if not (isinstance(spec, str) and spec.strip().startswith("ubgi:")):
            return make_player(spec)
        return make_engine_player(spec, dict(self.engines), self.log)

    def __reduce__(self):
        return (EnginePlayers, (self.engines, self.log))
