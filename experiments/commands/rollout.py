"""``bgsim rollout``: play a position out many times with one checker bot and report its chances.

The work is ``bgsim.rollout.rollout``; here: the player spec (default ``nn``, the strongest
built-in bot), the progress bar, and Ctrl-C, which ends the rollout after the batch in flight
and reports the trials done instead of throwing them away.
"""

from __future__ import annotations

import json
import signal
import sys
from bgsim.interchange.xgid import xgid_of


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
    parser.add_argument("--games", type=int, default=1296, metavar="N",
                        help="trials (default 1296: every first-two-roll pair once)")
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="random seed (default 1)")
    parser.add_argument("--player", default=DEFAULT_PLAYER, metavar="SPEC",
                        help=f"checker bot that plays both sides (default {DEFAULT_PLAYER}; a cube bot is ignored)")
    parser.add_argument("--truncate", action="store_true",
                        help="stop each trial once both sides have borne in and count the bear-off "
                        "database's exact value there")
    parser.add_argument("--threads", type=int, default=None, metavar="T", help="threads (default: all cores)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run_rollout)


def run_rollout(args) -> int:
    from bgsim.rollout import rollout
    from bots import make_player
    from bots.registry import BotPlayer
    from experiments.running.files import stop_hook
    from experiments.running.machine import COMPILING, cap_threads, fast_compile_pending
    from experiments.running.progress import Progress

    from bgsim.interchange.xgid import read_position_text

    position, _ = read_position_text(args.position_id)  # a bad ID is a ValueError: one line
    if position.variant != "standard":  # before the compile: bgsim.rollout says the same
        raise ValueError(f"rollouts roll out positions of the standard game only, not {position.variant}")
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    player = BotPlayer(make_player(args.player).checker)  # cubeless: only the checker bot plays
    log = (lambda text: print(text, file=sys.stderr, flush=True))
    threads = cap_threads(args.threads, log)
    if fast_compile_pending():
        log(COMPILING)
    bar = Progress(args.games, 0, "trials", not args.no_progress)
    stopped = []
    batches = []

    def on_batch(done: int) -> None:
        bar.update(done - (batches[-1] if batches else 0))
        batches.append(done)
        stop_hook(len(batches))  # tests: BGSIM_STOP_AFTER=K interrupts after batch K

    previous = signal.signal(signal.SIGINT, lambda *_: stopped.append(True))
    try:
        result = rollout(position, player, args.games, args.seed, truncate=args.truncate,
                         threads=threads, on_batch=on_batch, should_stop=lambda: bool(stopped))
    finally:
        signal.signal(signal.SIGINT, previous)
        bar.close()
    if result.interrupted:
        log(f"interrupted: reporting the {result.games} of {result.requested} trials done")
    if args.json:
        print(json.dumps({**result.as_dict(), "xgid": xgid_of(position)}, indent=2))
        return 0
    print(f"{result.position_id} ({xgid_of(position)}), side on roll: {result.games} trials of {result.player}, seed {result.seed}"
          + (", truncated at the bear-off databases" if result.truncated else "")
          + (" (interrupted)" if result.interrupted else ""))
    se = result.se
    for label, key in (("win", "win"), ("  gammon", "win_gammon"), ("  backgammon", "win_backgammon"),
                       ("lose gammon", "lose_gammon"), ("  backgammon", "lose_backgammon")):
        print(f"  {label:<14}{100 * result.probabilities[key]:7.3f}%  +- {100 * se[key]:.3f}")
    print(f"  cubeless equity {result.equity:+.4f}  +- {se['equity']:.4f}  (one standard error)")
    return 0
