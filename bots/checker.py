"""Checker bots: choose one of the legal plays.

Contract shared with the fast engine (``docs/ARCHITECTURE.md``):

* ``random`` picks ``plays[random.below(len(plays))]`` with the seat's own stream, nothing else;
* an evaluating bot scores every play's ``play.result`` board (26 ints, seen from the mover,
  not turned) with plain sequential float64 arithmetic, takes the highest score, and on a tie
  the first play in the list (the canonical order).
* acey-deucey's double after a 1-2 (``choose_double``): ``random`` draws ``1 + below(6)``
  (:func:`bgsim.decisions.random_double`); an evaluating bot takes the double whose best play
  scores highest (:func:`best_double`).

In a variant the bots see every position as one of the standard game
(``bgsim.board.Position.as_standard``: checkers in hand on the bar); ``BotPlayer`` hands them
those, so no bot reads a variant's state.  ``refused_variants`` names the variants a bot cannot
play (``BotPlayer.check_variant`` refuses them in one line) and ``variant_note`` what
``bgsim bots`` says about variants.

Every evaluation is a module-level function of the board and the parameters, so the Numba
kernels can mirror it line by line.

A bot implements ``pick``; ``choose`` (what a player asks) applies the ``bearoff`` capability
first (:data:`BEAROFF`, the switch; what it means and how the halves keep it is the capability
contract in ``bgsim/layouts.py``).  A bot with a fast kernel sets ``fast_name`` to a name
declared there (``bots.params.Bot``).
"""

from __future__ import annotations

from typing import Sequence

from bgsim.board import Position, pip_counts
from bgsim.decisions import random_double, random_play
from bgsim.dice import RandomStream
from bgsim.rules import Play

from .features import shots_at
from .params import Bot, Param, parse_bool, parse_float


class CheckerBot(Bot):
    refused_variants: tuple[str, ...] = ()
    variant_note = ""

    def choose(self, position: Position, roll: tuple[int, int], plays: Sequence[Play],
               random: RandomStream) -> Play:
        """The bot's play: the perfect bear-off player's where the bot's ``bearoff`` switch is
        on and the position is a pure bear-off, else :meth:`pick`'s."""
        perfect = bearoff_hand_off(self, position, plays)
        if perfect is not None:
            return perfect
        return self.pick(position, roll, plays, random)

    def pick(self, position: Position, roll: tuple[int, int], plays: Sequence[Play],
             random: RandomStream) -> Play:
        """The bot's own choice among ``plays`` (the canonical order)."""
        raise NotImplementedError

    def choose_double(self, position: Position, options: Sequence[Sequence[Play]],
                      random: RandomStream) -> int:
        """Acey-deucey: the double (1..6) to play after a 1-2 (``bgsim.decisions.Player``)."""
        raise NotImplementedError


BEAROFF = Param("bearoff", parse_bool, False,
                "play pure bear-offs (all checkers home) from the bear-off databases: perfect where both "
                "sides are in the two-sided table, the best one-sided equity elsewhere")


def bearoff_hand_off(bot, position, plays) -> Play | None:
    """The perfect bear-off player's play when ``bot`` has ``bearoff`` on and the position is a
    pure bear-off of both sides (bgsim.bearoff.player); None: the bot chooses itself."""
    if not getattr(bot, "bearoff", False):
        return None
    from bgsim.bearoff.player import bearoff_choice, player_tables

    return bearoff_choice(position, plays, player_tables())


def best_double(options: Sequence[Sequence[Play]], value) -> int:
    """The double whose best play has the highest ``value(play)``: doubles 1..6 in turn, each
    play in canonical order, a strictly higher value wins (so the lowest double on a tie); 1 when
    no double can be played at all."""
    best, best_value = 1, None
    for double, plays in enumerate(options, 1):
        for play in plays:
            score = value(play)
            if best_value is None or score > best_value:
                best, best_value = double, score
    return best


class EvaluationBot(CheckerBot):
    """Picks the play whose resulting board scores highest; the first one on a tie."""

    def score(self, board: tuple[int, ...], before: Position) -> float:
        raise NotImplementedError

    def choose_double(self, position, options, random):
        return best_double(options, lambda play: self.score(play.result.board, position))

    def pick(self, position, roll, plays, random):
        best = plays[0]
        best_score = self.score(best.result.board, position)
        for play in plays[1:]:
            value = self.score(play.result.board, position)
            if value > best_score:  # strictly greater: ties keep the earlier play
                best, best_score = play, value
        return best


class RandomBot(CheckerBot):
    """Uniform over the distinct legal plays: :func:`bgsim.decisions.random_play`."""

    name = "random"
    fast_name = "random"
    description = "uniform over the distinct legal plays, from the seat's own random stream"

    def pick(self, position, roll, plays, random):
        return random_play(plays, random)

    def choose_double(self, position, options, random):
        return random_double(random)


def racer_score(board, hit: float, blot: float) -> float:
    """``(opponent pips - own pips) + hit * (opponent checkers on the bar) - blot * exposed``.

    ``exposed`` is the number of own blots with an opponent checker behind them
    (:func:`bots.features.shots_at`, first value).  Every full play takes the same pips off the
    mover's count, so the pip term prefers hits (which add to the opponent's count) and plays
    that waste fewest pips bearing off.  Without the blot term two racers hit each other's
    blots in their home boards for ever (games of tens of thousands of plies); a small price on
    a blot left in reach ends that.  Summed left to right in float64.
    """
    own, opponent = pip_counts(board)
    exposed, _ = shots_at(board)
    return float(opponent - own) + hit * float(-board[0]) - blot * float(exposed)


class RacerBot(EvaluationBot):
    """Greedy on pips and hits, with a price on blots left in reach: :func:`racer_score`."""

    name = "racer"
    fast_name = "racer"
    description = "greedy: the biggest pip lead after the play, a bonus per hit, a price per blot in reach"
    PARAMS = (
        Param("hit", parse_float, 2.0, "bonus per opponent checker on the bar, on top of the pips it loses"),
        Param("blot", parse_float, 5.0, "price (in pips) per own blot an opponent checker could hit"),
        BEAROFF,
    )

    def score(self, board, before):
        return racer_score(board, self.hit, self.blot)

    def fast_params(self):
        return {"hit": float(self.hit), "blot": float(self.blot)}


BOTS = (RandomBot, RacerBot)  # in the order `bgsim bots` lists them (bots.registry)
