"""Bots: checker bots and cube bots, and players built from spec strings.

``make_player("heuristic+pipdiff(double=8%,take=12%)")`` gives a player for
``bgsim.series.play_games``; ``describe_bots()`` lists every bot with its parameters.
Imports flow one way: this package uses ``bgsim`` and never ``experiments``.
"""

from .params import SpecError, Threshold
from .registry import BotPlayer, EnginePlayers, checker_bots, cube_bots, make_checker, make_cube, make_player

__all__ = [
    "BotPlayer",
    "EnginePlayers",
    "SpecError",
    "Threshold",
    "checker_bots",
    "cube_bots",
    "describe_bots",
    "make_checker",
    "make_cube",
    "make_player",
]


def describe_bots() -> str:
    """Every bot with its parameters, defaults and a one-line description."""
    lines = []
    for title, registry in (("checker bots", checker_bots()), ("cube bots", cube_bots())):
        lines.append(f"{title}:")
        for name, bot in registry.items():
            engine = "" if getattr(bot, "fast_name", "") else "  [reference engine only]"
            lines.append(f"  {name:<12} {bot.description}{engine}")
            if getattr(bot, "variant_note", ""):
                lines.append(f"      {'(variants)':<18} {bot.variant_note}")
            for param in bot.PARAMS:
                setting = f"{param.key}={param.default_text}"
                lines.append(f"      {setting:<18} {param.help}")
        lines.append("")
    lines.append("A player is CHECKER or CHECKER+CUBE, e.g. heuristic+pipdiff(double=8%,redouble=9%,take=12%);")
    lines.append("a bare CHECKER never doubles and takes every double.")
    lines.append("Variants (--variant; both engines): every checker bot plays every variant, unless said above,")
    lines.append("seeing checkers in hand as on the bar; cube bots play wherever there is a cube (not acey-deucey).")
    return "\n".join(lines)
