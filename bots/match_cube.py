"""Cube judgement at a match score, shared by the score-aware cube bots (reference engine).

The fast engine mirrors every function here operation for operation in
``bgsim/fast/match_cube.py``; the match equity table reaches its kernels as array data
(``met_pre``, ``met_post``: the published Kazaross-XG2 table of :mod:`bgsim.met`, 25 points,
``bgsim.met.kernel_arrays``).  What the score decides alone (:func:`forced_offer`) comes first
for every bot with ``score_aware`` on: ``bots.cube.CubeBot.offer_double`` asks it, and the fast
engine's dispatch, built from the layouts' ``score_aware`` capability.

Three layers, applied in this order by every score-aware bot in a match:

1. **What the score decides alone** (:func:`forced_offer`).  A double is never offered when the
   cube already gives the doubler the match with any win (``value >= away``: the cube cannot
   matter, no double past what is needed; this is also why the 1-away leader never doubles).  A
   double is always offered, at the first chance, when any loss at the current cube already
   loses the match (``value >= opponent's away``: the post-Crawford trailer, and any side the
   opponent's next win finishes): it costs nothing, and the leader's answer weighs its free drop.
2. **The take point of the score** (:func:`drop_point`): the doubler's game-winning chance above
   which the taker should drop, from the table, with the doubled cube dead after the take:
   ``(cash - loss) / (win - loss)`` with ``cash = MET(a - v, b)``, ``win = MET(a - 2v, b)`` and
   ``loss = MET(a, b - 2v)`` (the doubler ``a`` away, the taker ``b``, cube ``v``).  Money's
   dead-cube drop point is 3/4.
3. **The bot's own judgement, moved by the score.**  The pip rules (``pipdiff``, ``keith``,
   ``thorp``) read their count as a game-winning chance by Kleinman's race formula
   (:func:`race_chance`), and so their money thresholds too (the chance at the count where the
   money rule would just double, or just drop).  In a match both thresholds move by
   ``drop_point - 3/4``, how far the score's drop point lies from money's: the bot keeps the width
   of its own doubling window, and its window ends where the score puts it.  These rules have
   no gammon chances (they count pips), so the take point counts none.  The net bots (``nn``,
   ``gnubg``) use Janowski's cubeful formulas in match-winning-chance units
   (:func:`match_equities`), gammons valued at the score.

Beyond the table's 25 points the money rule applies (the shift is 0); layer 1 still holds.
"""

from __future__ import annotations

import math

from bgsim import met

MET_LENGTH = met.KERNEL_LENGTH  # the published table's length; the fast engine's kernels use the same
MONEY_DROP_POINT = 0.75  # dead cube: the taker needs 1/4


def in_table(away: int, opponent_away: int) -> bool:
    return away <= MET_LENGTH and opponent_away <= MET_LENGTH


def equity(away: int, opponent_away: int, post_crawford: bool) -> float:
    """Match-winning chance ``away`` against ``opponent_away`` (``bgsim.met`` conventions).

    ``post_crawford``: the Crawford game is behind (a side at 1-away then plays with the cube);
    before it, an entry at 1-away is the Crawford game's.
    """
    arrays = met.kernel_arrays()
    if away <= 0:
        return 1.0
    if opponent_away <= 0:
        return 0.0
    if post_crawford and (away == 1) != (opponent_away == 1):
        if away == 1:
            return 1.0 - float(arrays["met_post"][opponent_away - 1])
        return float(arrays["met_post"][away - 1])
    return float(arrays["met_pre"][away - 1, opponent_away - 1])


def forced_offer(cube) -> bool | None:
    """Layer 1: False or True where the score alone decides the offer, else None."""
    away, opponent_away = cube.away
    if cube.value >= away:
        return False
    if cube.value >= opponent_away:
        return True
    return None


def drop_point(cube) -> float:
    """Layer 2: the doubler's game-winning chance above which the double should be dropped."""
    away, opponent_away = cube.away
    value, post = cube.value, cube.post_crawford
    cash = equity(away - value, opponent_away, post)
    win = equity(away - 2 * value, opponent_away, post)
    loss = equity(away, opponent_away - 2 * value, post)
    return (cash - loss) / (win - loss)


def shift(cube) -> float:
    """How far the score moves a pip rule's thresholds (0 in money games and beyond the table)."""
    if cube.match_to == 0 or not in_table(*cube.away):
        return 0.0
    return drop_point(cube) - MONEY_DROP_POINT


def race_chance(own: float, opponent: float) -> float:
    """The game-winning chance of the side on roll in a race, from two pip counts.

    Kleinman's count as Øystein Johansen stated it (rec.games.backgammon, 2001):
    ``D = opponent - own + 4`` (being on roll is worth 4 pips), ``S = own + opponent - 4``,
    ``K = D²/S``; the chance is ``0.5 + 0.267 √K`` for ``K < 1`` and ``0.76 + 0.114 ln K``
    above, mirrored for ``D < 0`` and kept within 0..1 (``S`` at least 1).
    """
    d = opponent - own + 4.0
    s = own + opponent - 4.0
    if s < 1.0:
        s = 1.0
    half = kleinman_half(d * d / s)
    if d >= 0.0:
        return 0.5 + half
    return 0.5 - half


def kleinman_half(k: float) -> float:
    """The leader's chance less one half for Kleinman's metric ``k`` (``D²/S``, see
    :func:`race_chance`).

    The two published pieces do not meet at ``k = 1`` (0.267 against 0.26), so the chance dips
    slightly between about ``k = 0.95`` and ``1.06``; kept as published, since the rules built
    on it are the published ones."""
    if k < 1.0:
        half = 0.267 * math.sqrt(k)
    else:
        half = 0.26 + 0.114 * math.log(k)
    if half > 0.5:
        half = 0.5
    return half


def janowski(p: float, w: float, l: float, x_centre: float, x_own: float,
             x_theirs: float) -> tuple[float, float, float]:
    """Janowski's cubeful (centred, owned, opponent owns) equities per cube for a chance ``p``,
    average win ``w`` and loss ``l``, each with its own cube life (see
    ``bots.gnubg_bots.janowski_equities``): 0 where the cube's owner can no longer use it."""
    s = w + l + 0.5
    dead = p * w - (1.0 - p) * l
    own = min(1.0, p * s - l)
    theirs = max(-1.0, p * s - l - 0.5)
    take_point = (l - 0.5) / s
    cash_point = (l + 1.0) / s
    if p <= take_point:
        centre = -1.0
    elif p >= cash_point:
        centre = 1.0
    else:
        centre = -1.0 + 2.0 * (p - take_point) / (cash_point - take_point)
    return (x_centre * centre + (1.0 - x_centre) * dead, x_own * own + (1.0 - x_own) * dead,
            x_theirs * theirs + (1.0 - x_theirs) * dead)


def _scaled(probabilities, x: float, away: int, opponent_away: int, value: int,
            post: bool) -> tuple[float, float, float, float, float]:
    """Janowski at cube ``value`` with the score's outcomes on a money scale: a single win is
    +1, a single loss -1, and a gammon or backgammon is what its match-winning chance is on
    that scale.  Returns (centred, owned, theirs, MWC of a single loss, MWC per unit)."""
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = probabilities
    p = min(max(win, 0.0), 1.0)
    lose_one = equity(away, opponent_away - value, post)
    win_one = equity(away - value, opponent_away, post)
    unit = 0.5 * (win_one - lose_one)  # MWC of one money-scale point at this cube
    win_two = (equity(away - 2 * value, opponent_away, post) - lose_one) / unit - 1.0
    win_three = (equity(away - 3 * value, opponent_away, post) - lose_one) / unit - 1.0
    lose_two = 1.0 - (equity(away, opponent_away - 2 * value, post) - lose_one) / unit
    lose_three = 1.0 - (equity(away, opponent_away - 3 * value, post) - lose_one) / unit
    w = 1.0
    if p > 1e-7:
        w = ((p - win_gammon) + (win_gammon - win_backgammon) * win_two
             + win_backgammon * win_three) / p
    l = 1.0
    if p < 1.0 - 1e-7:
        l = ((1.0 - p - lose_gammon) + (lose_gammon - lose_backgammon) * lose_two
             + lose_backgammon * lose_three) / (1.0 - p)
    # a cube its owner cannot turn to any purpose (it already covers what the owner needs) is dead
    x_own = x if value < away else 0.0
    x_theirs = x if value < opponent_away else 0.0
    x_centre = x if value < away or value < opponent_away else 0.0
    centred, owned, theirs = janowski(p, w, l, x_centre, x_own, x_theirs)
    return centred, owned, theirs, lose_one, unit


def match_equities(probabilities, x: float, cube) -> tuple[float, float, float]:
    """(no double, double/take, double/pass) in the doubler's match-winning chance, from the
    cubeless probabilities of the doubler's position (win, win gammon, win backgammon, lose
    gammon, lose backgammon; gammons include backgammons) and cube life ``x``."""
    away, opponent_away = cube.away
    value, post = cube.value, cube.post_crawford
    centred, owned, _, lose_one, unit = _scaled(probabilities, x, away, opponent_away, value, post)
    no_double = lose_one + unit * ((centred if cube.centred else owned) + 1.0)
    _, _, theirs, lose_two, unit_two = _scaled(probabilities, x, away, opponent_away, 2 * value, post)
    double_take = lose_two + unit_two * (theirs + 1.0)
    double_pass = equity(away - value, opponent_away, post)
    return no_double, double_take, double_pass
