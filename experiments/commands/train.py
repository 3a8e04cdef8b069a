"""``bgsim train``: train the ``nn`` checker bot from GNU Backgammon's evaluations.

See ``experiments/studies/training/train.py`` for the method.  With the defaults and ``--seed 1`` it
reproduces the shipped net (``bots/data/nn.npz``).  Needs ``gnubg-nn`` (``pip install
'bgsim[train]'``) for the labels; the trained bot itself needs only numpy and Numba.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import fields
from pathlib import Path

from experiments.commands.arguments import non_negative, positive, progress_flag, seed, threads_flag
from experiments.errors import MissingDependency

DEFAULT_FOLDER = Path("results/tmp/train")


def register(subparsers) -> None:
    from experiments.studies.training.train import Settings

    defaults = Settings()
    parser = subparsers.add_parser(
        "train",
        help="train the nn checker bot from GNU Backgammon's evaluations (needs gnubg-nn)",
        description="Distil GNU Backgammon's evaluations (0-ply, or deeper with --label-plies) of "
        "self-play positions into the "
        "nn checker bot, round after round (DAgger style), with checkpoints, a progress bar and a "
        "learning curve against pubeval (CSV and PNG in the checkpoint folder).",
    )
    parser.add_argument("--out", default="nn.npz", metavar="FILE",
                        help="output file: the trained net (default nn.npz); play it with nn(weights=FILE)")
    parser.add_argument("--folder", default=str(DEFAULT_FOLDER), metavar="DIR",
                        help=f"checkpoints, labelled positions and the learning curve (default {DEFAULT_FOLDER})")
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint in --folder")
    parser.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    help_text = {
        "seed": "everything is drawn from it", "rounds": "rounds of positions, labels and training",
        "positions": "new positions per round", "samples": "training examples per round",
        "hidden": "hidden units", "batch": "minibatch size", "rate": "Adam's starting rate",
        "round_decay": "each round's starting rate times this", "noise_first":
        "share of random plays in round 0 (pubeval self-play)", "noise": "share of random plays "
        "in the net's self-play rounds", "alternatives": "chance per ply to keep a rejected play too",
        "duel_deals": "deals against pubeval per learning-curve point (each played twice)",
        "checkpoint_steps": "batches between checkpoints",
        "label_plies": "GNU Backgammon's evaluation depth for the labels (gnubg-nn's numbering; "
        "1-ply costs about 2 ms a position on one core, 0-ply 0.01 ms)",
        "init": "a net file to start from: its weights, and its self-play for round 0",
        "contact": "the net also reads the contact inputs (blots, shots, primes, escapes of both "
        "sides: bgsim.net_format.CONTACT_INPUTS); --no-contact trains nn-v1's kind",
    }
    for field in fields(Settings):
        default = getattr(defaults, field.name)
        if type(default) is bool:
            parser.add_argument(f"--{field.name.replace('_', '-')}", action=argparse.BooleanOptionalAction,
                                default=default, help=f"{help_text.get(field.name, '')} (default {default})")
            continue
        kind = (seed if field.name == "seed" else non_negative if field.name == "label_plies"
                else positive if type(default) is int else type(default))
        parser.add_argument(f"--{field.name.replace('_', '-')}", type=kind, default=default,
                            metavar=("FILE" if field.name == "init" else field.name.upper()[:1]
                                     if kind is not float else "X"),
                            help=f"{help_text.get(field.name, '')} (default {default})")
    threads_flag(parser, "processes that make the labels (the net does not depend on it)")
    progress_flag(parser)
    parser.set_defaults(handler=run_train)


def settings_from_args(args):
    from experiments.studies.training.train import Settings

    values = {field.name: getattr(args, field.name) for field in fields(Settings)}
    for name in ("rounds", "positions", "samples", "hidden", "batch", "duel_deals", "checkpoint_steps"):
        if values[name] < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {values[name]}")
    if values["seed"] < 0:
        raise ValueError(f"--seed must be zero or positive, got {values['seed']}")
    for name in ("noise_first", "noise", "alternatives"):
        if not 0.0 <= values[name] <= 1.0:
            raise ValueError(f"--{name.replace('_', '-')} must be between 0 and 1, got {values[name]}")
    if values["label_plies"] > 2:
        raise ValueError(f"--label-plies {values['label_plies']}: 0, 1 or 2 (3-ply costs about a "
                         f"second a position)")
    if values["init"] and not Path(values["init"]).is_file():
        raise ValueError(f"--init {values['init']}: no such net file")
    if values["rate"] <= 0 or not 0 < values["round_decay"] <= 1:
        raise ValueError("--rate must be positive and --round-decay in (0, 1]")
    return Settings(**values)


def run_train(args) -> int:
    settings = settings_from_args(args)
    out = Path(args.out)
    if out.suffix != ".npz":
        raise ValueError(f"--out {out}: a net is written as .npz; name the file *.npz")
    if out.exists() and not args.force:
        raise ValueError(f"{out} exists; pass --force to overwrite it")
    folder = Path(args.folder)
    if folder.exists() and (folder / "state.npz").exists() and not args.resume:
        raise ValueError(f"{folder} holds a checkpoint; pass --resume to continue it or choose "
                         f"another --folder")
    if args.resume and not (folder / "state.npz").exists():
        raise ValueError(f"--resume: no checkpoint in {folder}")
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        raise MissingDependency("bgsim train needs gnubg-nn for its labels: pip install 'bgsim[train]'") from None
    from experiments.studies.training.train import Trainer, plot_curve

    started = time.time()
    net, _ = Trainer(settings, folder, progress=not args.no_progress,
                     workers=args.threads or os.cpu_count() or 1).run(resume=args.resume)
    seconds = time.time() - started
    arguments = " ".join(_flag(f.name, getattr(settings, f.name)) for f in fields(settings))
    net.note = (f"bgsim train {arguments}: GNU Backgammon {settings.label_plies}-ply labels of "
                f"{settings.rounds * settings.positions:,} self-play positions, "
                f"{settings.rounds * settings.samples:,} training examples; "
                f"{seconds:.0f} s in the last process")
    out.parent.mkdir(parents=True, exist_ok=True)
    net.save(out)
    plot_curve(folder / "curve.csv", folder / "curve.png")
    print(f"wrote {out}; learning curve: {folder / 'curve.csv'}, {folder / 'curve.png'}")
    return 0


def _flag(name: str, value) -> str:
    flag = f"--{name.replace('_', '-')}"
    if type(value) is bool:
        return flag if value else f"--no-{flag[2:]}"
    return f"{flag} {value}"
