"""Cube judgement at a match score: ``bots/match_cube.py`` operation for operation, in Numba.

The match equity table comes as array data in ``float64s``: ``pre`` and ``post`` are the starts
of the published table's pre-Crawford 25x25 (C order) and post-Crawford 25 entries (the
``met_pre`` and ``met_post`` arrays of a score-aware bot's layout, ``bgsim/layouts.py``).
"""

from __future__ import annotations

import math

from .compile import jit

MET_LENGTH = 25  # bots.match_cube.MET_LENGTH
MONEY_DROP_POINT = 0.75
NO_FORCE, FORCE_NO_DOUBLE, FORCE_DOUBLE = -1, 0, 1

# The cube view the game loop (bgsim/fast/game.py) hands every cube kernel: one int64 array.
VIEW_VALUE, VIEW_CENTRED, VIEW_MAX, VIEW_BEAVER, VIEW_JACOBY, VIEW_MATCH_TO, VIEW_AWAY, VIEW_OPP_AWAY, VIEW_POST_CRAWFORD = range(9)
VIEW_SIZE = 9


@jit
def equity(float64s, pre, post, away, opponent_away, post_crawford):
    if away <= 0:
        return 1.0
    if opponent_away <= 0:
        return 0.0
    if post_crawford and (away == 1) != (opponent_away == 1):
        if away == 1:
            return 1.0 - float64s[post + opponent_away - 1]
        return float64s[post + away - 1]
    return float64s[pre + (away - 1) * MET_LENGTH + opponent_away - 1]


@jit
def score_in_table(score_aware, view):
    """bots.match_cube.in_table for a score-aware bot: in a match, both scores within the table."""
    return (score_aware != 0.0 and view[VIEW_MATCH_TO] != 0
            and view[VIEW_AWAY] <= MET_LENGTH and view[VIEW_OPP_AWAY] <= MET_LENGTH)


@jit
def forced_offer(value, away, opponent_away):
    """FORCE_NO_DOUBLE, FORCE_DOUBLE, or NO_FORCE when the score alone does not decide."""
    if value >= away:
        return FORCE_NO_DOUBLE
    if value >= opponent_away:
        return FORCE_DOUBLE
    return NO_FORCE


@jit
def forced_at_score(score_aware, view):
    """What the score decides alone for a cube bot with ``score_aware`` (its parameter's value)
    on, in a match (bots.cube.CubeBot.offer_double): FORCE_NO_DOUBLE, FORCE_DOUBLE, or
    NO_FORCE, which is also the answer of a money game and of a bot with the switch off."""
    if score_aware == 0.0 or view[VIEW_MATCH_TO] == 0:
        return NO_FORCE
    return forced_offer(view[VIEW_VALUE], view[VIEW_AWAY], view[VIEW_OPP_AWAY])


@jit
def shift(float64s, pre, post, match_to, value, away, opponent_away, post_crawford):
    """The score's drop point less money's (0 in money games and beyond the table)."""
    if match_to == 0 or away > MET_LENGTH or opponent_away > MET_LENGTH:
        return 0.0
    cash = equity(float64s, pre, post, away - value, opponent_away, post_crawford)
    win = equity(float64s, pre, post, away - 2 * value, opponent_away, post_crawford)
    loss = equity(float64s, pre, post, away, opponent_away - 2 * value, post_crawford)
    return (cash - loss) / (win - loss) - MONEY_DROP_POINT


@jit
def race_chance(own, opponent):
    """Kleinman's race formula (see bots.match_cube.race_chance)."""
    d = opponent - own + 4.0
    s = own + opponent - 4.0
    if s < 1.0:
        s = 1.0
    half = kleinman_half(d * d / s)
    if d >= 0.0:
        return 0.5 + half
    return 0.5 - half


@jit
def kleinman_half(k):
    """bots.match_cube.kleinman_half."""
    if k < 1.0:
        half = 0.267 * math.sqrt(k)
    else:
        half = 0.26 + 0.114 * math.log(k)
    if half > 0.5:
        half = 0.5
    return half


@jit
def janowski(p, w, l, x_centre, x_own, x_theirs):
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


@jit
def _scaled(probabilities, x, float64s, pre, post, away, opponent_away, value, post_crawford):
    win = probabilities[0]
    win_gammon = probabilities[1]
    win_backgammon = probabilities[2]
    lose_gammon = probabilities[3]
    lose_backgammon = probabilities[4]
    p = min(max(win, 0.0), 1.0)
    lose_one = equity(float64s, pre, post, away, opponent_away - value, post_crawford)
    win_one = equity(float64s, pre, post, away - value, opponent_away, post_crawford)
    unit = 0.5 * (win_one - lose_one)
    win_two = (equity(float64s, pre, post, away - 2 * value, opponent_away, post_crawford) - lose_one) / unit - 1.0
    win_three = (equity(float64s, pre, post, away - 3 * value, opponent_away, post_crawford) - lose_one) / unit - 1.0
    lose_two = 1.0 - (equity(float64s, pre, post, away, opponent_away - 2 * value, post_crawford) - lose_one) / unit
    lose_three = 1.0 - (equity(float64s, pre, post, away, opponent_away - 3 * value, post_crawford) - lose_one) / unit
    w = 1.0
    if p > 1e-7:
        w = ((p - win_gammon) + (win_gammon - win_backgammon) * win_two
             + win_backgammon * win_three) / p
    l = 1.0
    if p < 1.0 - 1e-7:
        l = ((1.0 - p - lose_gammon) + (lose_gammon - lose_backgammon) * lose_two
             + lose_backgammon * lose_three) / (1.0 - p)
    x_own = x if value < away else 0.0
    x_theirs = x if value < opponent_away else 0.0
    x_centre = x if value < away or value < opponent_away else 0.0
    centred, owned, theirs = janowski(p, w, l, x_centre, x_own, x_theirs)
    return centred, owned, theirs, lose_one, unit


@jit
def match_equities(probabilities, x, float64s, pre, post, value, centred, away, opponent_away,
                   post_crawford):
    """(no double, double/take, double/pass) in the doubler's match-winning chance."""
    at_centre, owned, _, lose_one, unit = _scaled(probabilities, x, float64s, pre, post, away,
                                                  opponent_away, value, post_crawford)
    no_double = lose_one + unit * ((at_centre if centred else owned) + 1.0)
    _, _, theirs, lose_two, unit_two = _scaled(probabilities, x, float64s, pre, post, away,
                                               opponent_away, 2 * value, post_crawford)
    double_take = lose_two + unit_two * (theirs + 1.0)
    double_pass = equity(float64s, pre, post, away - value, opponent_away, post_crawford)
    return no_double, double_take, double_pass
