"""``bgsim rollout``: play a position out many times with one checker bot and report its chances.

The work is ``bgsim.rollout.rollout``; here: the player spec (default ``nn``, the strongest
built-in bot), the progress bar, and Ctrl-C, which ends the rollout after the batch in flight
and reports the trials done instead of throwing them away.
"""

from __future__ import annotations

import json
import math
import signal
import sys
from contextlib import nullcontext
from bgsim.interchange.xgid import Xgid, xgid_of
from experiments.commands.arguments import (EXIT_INTERRUPTED, games_flag, json_flag, progress_flag,
                                           refuse_engines, seed_flag, threads_flag)


DEFAULT_PLAYER = "nn"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "rollout",
        help="play a position out many times (cubeless) and report its chances with standard errors",
        description="Cubeless rollout of a position (GNU Backgammon ID, side on roll before its roll) "
        "on the fast engine, all cores: the side on roll's chances to win, win a gammon or backgammon, "
        "lose a gammon or backgammon, and the cubeless equity, each with its standard error.  The first "
        "two rolls are stratified over all 36 x 36 outcomes and trials come in pairs on mirrored dice. "
        "Ctrl-C stops after the current batch and reports the trials done.",
    )
    parser.add_argument("position_id", metavar="ID",
                        help="GNU Backgammon position ID (side on roll first) or an XGID")
    games_flag(parser, "trials (default 1296: every first-two-roll pair once)", default=None)
    parser.set_defaults(games=1296)
    seed_flag(parser, "random seed")
    parser.add_argument("--player", default=DEFAULT_PLAYER, metavar="SPEC",
                        help=f"checker bot that plays both sides (default {DEFAULT_PLAYER}); rollouts are "
                        "cubeless, so a spec with a cube bot is refused")
    parser.add_argument("--truncate", action="store_true",
                        help="stop each trial once both sides have borne in and count the bear-off "
                        "database's exact value there")
    parser.add_argument("--variant", default=None, metavar="NAME",
                        help="hypergammon1, hypergammon2 or hypergammon3: a bare ID is a position of that game "
                        "(a position string naming it needs no flag; default: the standard game)")
    threads_flag(parser)
    json_flag(parser)
    progress_flag(parser)
    parser.set_defaults(handler=run_rollout)


def run_rollout(args) -> int:
    from bgsim.rollout import rollout
    from bots import make_player
    from bots.cube import NoCube
    from bots.registry import BotPlayer
    from experiments.running.files import stop_hook
    from experiments.running.machine import compiling_message, fast_compile_pending
    from experiments.running.progress import Progress

    from bgsim.interchange.xgid import read_position_text

    from bgsim.rollout import check_rollout_variant

    given, state = read_position_text(args.position_id, args.variant)  # a bad ID is a ValueError: one line
    check_rollout_variant(given.variant, args.truncate)  # before the compile
    refuse_engines([args.player], "rollouts play on the fast engine only, and an external engine plays on the "
                   "reference engine (seat it with bgsim play or bgsim run)")
    chosen = make_player(args.player)
    if not isinstance(chosen.cube, NoCube):
        raise ValueError(f"--player {args.player}: rollouts are cubeless, so its cube bot would do nothing; "
                         "give the checker bot alone")
    player = BotPlayer(chosen.checker)
    position, played = after_the_roll(given, state, player, args.seed)
    log = (lambda text: print(text, file=sys.stderr, flush=True))
    from bgsim.fast import compile_only_for, supports

    fast = supports(player, position.variant)  # the rollout plays on the fast engine, on the kernels of this bot alone

    def scope():
        return compile_only_for([player]) if fast else nullcontext()

    with scope():
        if fast and fast_compile_pending([player]):
            log(compiling_message([player]))
    bar = Progress(args.games, 0, "trials", not args.no_progress)
    stopped = []
    batches = []

    def on_batch(done: int) -> None:
        bar.update(done - (batches[-1] if batches else 0))
        batches.append(done)
        stop_hook(len(batches))  # tests: BGSIM_STOP_AFTER=K interrupts after batch K

    previous = signal.signal(signal.SIGINT, lambda *_: stopped.append(True))
    try:
        with scope():
            result = rollout(position, player, args.games, args.seed, truncate=args.truncate,
                             threads=args.threads, on_batch=on_batch, should_stop=lambda: bool(stopped))
    finally:
        signal.signal(signal.SIGINT, previous)
        bar.close()
    if result.interrupted:
        log(f"interrupted: reporting the {result.games} of {result.requested} trials done")
    done = EXIT_INTERRUPTED if result.interrupted else 0
    if played is not None:  # rolled out from the opponent's turn: the chances of the side that rolled
        result = _flipped(result, given.position_id)
    # an XGID holds the standard game only
    xgid = state.text if state is not None else xgid_of(given) if given.variant == "standard" else None
    if args.json:
        # JSON has no NaN: a standard error that cannot be estimated (one trial) is null
        print(json.dumps(_finite({**result.as_dict(), "xgid": xgid, "played": played}), indent=2, allow_nan=False))
        return done
    print(f"{result.position_id}" + (f" ({xgid})" if xgid else "")
          + f", side on roll: {result.games} trials of {result.player}, seed {result.seed}"
          + (", truncated at the bear-off databases" if result.truncated else "")
          + (" (interrupted)" if result.interrupted else ""))
    if state is not None and state != Xgid(position=given):
        print(f"  {state.describe()}" + ("" if played is None else f": {result.player} plays {played}, then "
                                          "the game is rolled out from the opponent's turn")
              + "; cubeless: the chances do not depend on the cube or the score")
    se = result.se
    for label, key in (("win", "win"), ("  gammon", "win_gammon"), ("  backgammon", "win_backgammon"),
                       ("lose gammon", "lose_gammon"), ("  backgammon", "lose_backgammon")):
        print(f"  {label:<14}{100 * result.probabilities[key]:7.3f}%  +- {100 * se[key]:.3f}")
    print(f"  cubeless equity {result.equity:+.4f}  +- {se['equity']:.4f}  (one standard error)")
    return done


def after_the_roll(position, state, player, seed: int):
    """The position a rollout starts from: ``position`` before its roll, or, where the XGID has
    the dice rolled, the opponent's turn after the play ``player`` chooses for them (and that
    play's notation; None before the roll)."""
    from bgsim import legal_plays
    from bgsim.dice import RandomStream

    if state is None or state.dice == (0, 0):
        return position, None
    plays = legal_plays(position, state.dice)
    if not plays:
        return position.turned(), "no play (the roll cannot be played)"
    play = player.choose_play(position, state.dice, plays, RandomStream(seed, 0, 1))
    if play.result.finished:
        raise ValueError(f"{play.notation} of {state.dice[0]}-{state.dice[1]} ends the game: nothing to roll out")
    return play.result.turned(), play.notation


def _flipped(result, position_id: str):
    """A rollout of the opponent's turn as the chances of the side that rolled before it."""
    from dataclasses import replace

    mine = {"win": 1.0 - result.probabilities["win"], "win_gammon": result.probabilities["lose_gammon"],
            "win_backgammon": result.probabilities["lose_backgammon"],
            "lose_gammon": result.probabilities["win_gammon"], "lose_backgammon": result.probabilities["win_backgammon"]}
    se = {"win": result.se["win"], "win_gammon": result.se["lose_gammon"], "win_backgammon": result.se["lose_backgammon"],
          "lose_gammon": result.se["win_gammon"], "lose_backgammon": result.se["win_backgammon"],
          "equity": result.se["equity"]}
    return replace(result, position_id=position_id, probabilities=mine, equity=-result.equity, se=se)


def _finite(value):
    """``value`` with every NaN or infinity (at any depth) replaced by None."""
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
