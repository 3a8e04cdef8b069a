"""The best answer bgsim has for a position (``bgsim eval``).

``bgsim.bearoff.evaluate`` answers pure bear-offs exactly; any other position gets the ``nn``
checker bot's evaluation when that bot is installed: the fallback lives here, not in bgsim,
because bgsim never imports bots.
"""

from __future__ import annotations

from bgsim import Position

KEYS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
SOURCES = {
    "two-sided": "two-sided bear-off database (exact, perfect play with the cube)",
    "one-sided": "one-sided bear-off database (exact convolution of both sides' roll counts)",
    "nn": "nn checker bot's neural net (an estimate, not exact)",
}


def _nn_evaluate(position: Position):
    """The nn bot's cubeless probabilities, or None when that bot (or its net) is not installed."""
    try:
        from bots.registry import make_checker

        bot = make_checker("nn")
    except (ImportError, ValueError, OSError):
        return None
    evaluate = getattr(bot, "evaluate", None)
    return tuple(float(p) for p in evaluate(position)) if evaluate else None


def evaluation(position: Position) -> dict:
    """The answer of ``bgsim eval`` as a dict (the JSON keys); ValueError when there is none."""
    from bgsim import bearoff

    found = bearoff.evaluate(position)
    if found is not None:
        cubeful = found.cubeful
        epc = bearoff.effective_pip_counts(position)
        return {
            **dict(zip(KEYS, found.probabilities)),
            "equity": found.equity,
            "cubeful": None if cubeful is None else
            {"centred": cubeful.centred, "owned": cubeful.owned, "opponent": cubeful.opponent},
            "action": found.action,
            "source": found.source,
            "effective_pip_counts": {"own": epc[0], "opponent": epc[1]},
        }
    probabilities = _nn_evaluate(position)
    if probabilities is None:
        raise ValueError(
            f"no evaluation for {position.position_id}: only pure bear-offs are exact, and the nn "
            "bot that estimates other positions is not installed"
        )
    return {
        **dict(zip(KEYS, probabilities)),
        "equity": bearoff.cubeless_equity(probabilities),
        "cubeful": None,
        "action": None,
        "source": "nn",
        "effective_pip_counts": None,
    }
