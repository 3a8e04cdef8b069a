"""The best answer bgsim has for a position (``bgsim eval``).

``bgsim.bearoff.evaluate`` answers pure bear-offs exactly; any other position gets the ``nn``
checker bot's evaluation when that bot is installed: the fallback lives here, not in bgsim,
because bgsim never imports bots.  Any position also gets the ``nn`` cube's money equities and
action (:func:`nn_cube`: Janowski's formulas on the net's chances, an estimate), and on request
GNU Backgammon's (:func:`gnubg_cube`).
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


def nn_cube(position: Position) -> dict | None:
    """The ``nn`` cube bot's money equities of the side on roll per unit of the cube, as it
    decides (:class:`bots.nn.NNCube`: Janowski's formulas with its cube life on the net's cubeless
    chances, no Jacoby rule): not doubling with the cube centred and owned, doubling and being
    taken, the cube's worth after the best action, and that action (``bgsim.bearoff.cube_action``'s
    words).  None when the nn bot is not installed."""
    from bgsim.bearoff import cube_action

    try:
        from bots import make_cube
        from bots.gnubg_bots import janowski_equities
        from bots.nn import evaluate

        cube = make_cube("nn")
    except (ImportError, ValueError, OSError):
        return None
    centred, owned, theirs = janowski_equities(evaluate(cube.net, position), cube.x)
    double_take = 2.0 * theirs
    return {
        "estimate": f"Janowski's formulas, cube life {cube.x:g}, on the nn net's cubeless chances",
        "no_double": centred, "no_double_owned": owned, "double_take": double_take, "double_pass": 1.0,
        "centred": max(centred, min(double_take, 1.0)), "owned": max(owned, min(double_take, 1.0)),
        "opponent": theirs, "action": cube_action(centred, double_take), "action_owned": cube_action(owned, double_take),
    }


def gnubg_cube(position: Position, plies: int = 2) -> dict:
    """GNU Backgammon's money cube analysis of the side on roll at ``plies`` (no Jacoby rule, no
    beavers): its cubeless chances, and for the cube centred and owned its cubeful equities per
    unit of the cube and its proper action (its own words and their category)."""
    from bgsim.interchange.xgid import ON_ROLL, Xgid
    from experiments.analysis.gnubg_program import cube_decisions

    centred, owned = cube_decisions([Xgid(position=position), Xgid(position=position, cube_value=2, cube_owner=ON_ROLL)],
                                    plies)
    answer = {"plies": plies, **dict(zip(KEYS, centred.chances)), "equity": centred.cubeless}
    for name, found in (("centred", centred), ("owned", owned)):
        answer[name] = {"no_double": found.no_double, "double_take": found.double_take,
                        "double_pass": found.double_pass, "proper": found.proper, "category": found.category}
    return answer
