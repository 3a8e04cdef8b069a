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
from bgsim.interchange.xgid import xgid_of
from experiments.commands.arguments import (EXIT_INTERRUPTED, games_flag, json_flag, progress_flag, seed_flag,
                                           threads_flag)


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

    position, _ = read_position_text(args.position_id, args.variant)  # a bad ID is a ValueError: one line
    check_rollout_variant(position.variant, args.truncate)  # before the compile
    chosen = make_player(args.player)
    if not isinstance(chosen.cube, NoCube):
        raise ValueError(f"--player {args.player}: rollouts are cubeless, so its cube bot would do nothing; "
                         "give the checker bot alone")
    player = BotPlayer(chosen.checker)
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
    xgid = xgid_of(position) if position.variant == "standard" else None  # an XGID holds the standard game
    if args.json:
        # JSON has no NaN: a standard error that cannot be estimated (one trial) is null
        print(json.dumps(_finite({**result.as_dict(), "xgid": xgid}), indent=2, allow_nan=False))
        return done
    print(f"{result.position_id}" + (f" ({xgid})" if xgid else "")
          + f", side on roll: {result.games} trials of {result.player}, seed {result.seed}"
          + (", truncated at the bear-off databases" if result.truncated else "")
          + (" (interrupted)" if result.interrupted else ""))
    se = result.se
    for label, key in (("win", "win"), ("  gammon", "win_gammon"), ("  backgammon", "win_backgammon"),
                       ("lose gammon", "lose_gammon"), ("  backgammon", "lose_backgammon")):
        print(f"  {label:<14}{100 * result.probabilities[key]:7.3f}%  +- {100 * se[key]:.3f}")
    print(f"  cubeless equity {result.equity:+.4f}  +- {se['equity']:.4f}  (one standard error)")
    return done


def _finite(value):
    """``value`` with every NaN or infinity (at any depth) replaced by None."""
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
