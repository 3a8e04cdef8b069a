"""Hypergammon's solution on the command line: ``bgsim bearoff build --variant hypergammonN``,
``bgsim bearoff check --variant hypergammonN`` and ``bgsim eval POSITION --variant hypergammonN``
(``experiments/commands/eval.py`` registers the flags and hands these over).  The solution is
:mod:`bgsim.hypergammon`'s, built and checked by :mod:`experiments.studies.hypergammon`.
"""

from __future__ import annotations

import json
import sys

from bgsim import Position

KEYS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
SAMPLE = 200  # bgsim bearoff check --variant: states where GNU Backgammon's values are checked one step
SOURCE = "hypergammon solution (exact: perfect checker and cube play, money, no limit on the cube)"


def hypergammon_checkers(variant: str | None) -> int | None:
    """The checkers of ``--variant`` when it is hypergammon, None without it; one line for any
    other variant (the commands that take it here know only hypergammon's solution)."""
    if variant is None:
        return None
    from bgsim.hypergammon import checkers_of

    checkers = checkers_of(variant)  # an unknown name: its one line
    if checkers is None:
        raise ValueError(f"--variant {variant}: bgsim has exact solutions of hypergammon1, hypergammon2 and "
                         "hypergammon3 only")
    return checkers


def _log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_build(args, checkers: int) -> int:
    from experiments.running.machine import thread_limit
    from experiments.studies.hypergammon import build_solution

    threads = args.threads or thread_limit()
    report = build_solution(checkers, args.force, threads, not args.no_progress, _log)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    how = "current, not rebuilt" if report["build_s"] is None else f"built in {report['build_s']:.1f} s"
    print(f"{report['variant']}: {report['states']:,} states, {how}, {report['bytes'] / 2**20:.1f} MiB  {report['file']}")
    bound = report["error_bound"]
    print(f"  {report['sweeps']} sweeps to a threshold of {report['threshold']:g} (last change {report['last_change']:.1e}"
          + (f", a value at most about {bound:.1e} from the fixed point)" if bound is not None else ")"))
    return 0


def run_check(args, checkers: int, positions_given: bool) -> int:
    """``bgsim bearoff check --variant``: ``--positions`` states checked one step if given, else
    :data:`SAMPLE`."""
    from experiments.studies.hypergammon import compare_with_gnubg

    sample = args.positions if positions_given else SAMPLE
    if args.makehyper_start is not None and args.gnubg_file is not None:
        raise ValueError("--makehyper-start says how makehyper makes its file: not with --gnubg-file")
    keep = args.keep_sample
    if keep is not None and (keep.exists() or keep.suffix != ".npz" or not keep.parent.is_dir()):
        why = "exists" if keep.exists() else "is not a .npz file name" if keep.suffix != ".npz" else \
            "is in a folder that does not exist"
        raise ValueError(f"--keep-sample {keep}: {why}")  # before minutes of makehyper
    summary = compare_with_gnubg(checkers, args.gnubg_file, sample, args.seed, _log,
                                 makehyper_start=args.makehyper_start, keep_sample=keep)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{summary['variant']} against GNU Backgammon's makehyper file, {summary['bgsim']['states']:,} states, "
              f"tolerance {summary['tolerance']:.2g}")
        made = summary.get("makehyper", {})
        if made.get("start") == "bgsim":
            print(f"  makehyper's file: one iteration of its recursion from bgsim's solution under its convention "
                  f"(largest change of a value {made['norm_of_delta']:.1e}; the differences below are that step's)")
        point = summary["fixed_point"]
        print(f"  GNU Backgammon's values at {point['states']} random states are {'' if point['fixed_point'] else 'NOT '}"
              f"a fixed point of bgsim's recursion under its convention (largest residual "
              f"{max(point['largest_cubeful_residual'], point['largest_cubeless_residual']):.1e})")
        for name, what in (("bgsim_gnubg_convention", "bgsim under GNU Backgammon's convention for a roll "
                            "without a play"), ("bgsim", "bgsim's true solution")):
            if name not in summary:
                continue
            entry = summary[name]
            print(f"  {what}: equities agree in {entry['equities_agree']:,} states, largest difference "
                  f"{entry['largest_equity_difference']:.1e}; chances agree in {entry['chances_agree']:,} "
                  f"(other chances at the same cubeless equity, a tie broken the other way: "
                  f"{entry['other_chances_same_equity']:,}; at another equity: {entry['other_chances_other_equity']:,})")
    return 0 if summary["agrees"] else 1


def run_eval(position: Position, args) -> int:
    """``bgsim eval`` of a hypergammon position: the exact chances, the four cubeful equities and
    the cube actions (source "exact")."""
    from bgsim.hypergammon import check_position, evaluate
    from experiments.studies.hypergammon import announce_build

    checkers = check_position(position)  # a finished game: its one line, before any build
    announce_build(checkers, _log)
    found = evaluate(position)
    cubeful = found.cubeful
    answer = {
        "position": position.position_string, "variant": position.variant,
        **dict(zip(KEYS, found.probabilities)), "equity": found.equity,
        "cubeful": {"centred": cubeful.centred, "owned": cubeful.owned, "opponent": cubeful.opponent,
                    "jacoby": cubeful.jacoby, "no_double": cubeful.no_double,
                    "no_double_owned": cubeful.no_double_owned, "no_double_jacoby": cubeful.no_double_jacoby,
                    "double_take": cubeful.double_take, "double_pass": 1.0},
        "action": found.action, "action_owned": found.action_owned, "action_jacoby": found.action_jacoby,
        "source": found.source,
    }
    if args.json:
        print(json.dumps(answer, indent=2))
        return 0
    win = answer["win"]
    print(f"{position.position_string}, side on roll -- from the {SOURCE}")
    print(f"  win  {100 * win:7.3f}%  gammon {100 * answer['win_gammon']:7.3f}%  "
          f"backgammon {100 * answer['win_backgammon']:7.3f}%")
    print(f"  lose {100 * (1 - win):7.3f}%  gammon {100 * answer['lose_gammon']:7.3f}%  "
          f"backgammon {100 * answer['lose_backgammon']:7.3f}%")
    print(f"  cubeless equity {answer['equity']:+.5f}")
    print(f"  money equity with the cube: centred {cubeful.centred:+.5f}, owned {cubeful.owned:+.5f}, "
          f"opponent's {cubeful.opponent:+.5f}, centred under the Jacoby rule {cubeful.jacoby:+.5f}")
    print(f"  no double {cubeful.no_double:+.5f} (owned {cubeful.no_double_owned:+.5f}, Jacoby "
          f"{cubeful.no_double_jacoby:+.5f}), double/take {cubeful.double_take:+.5f}, double/pass +1")
    print(f"  cube action: {found.action} (owned cube: {found.action_owned}; Jacoby rule: {found.action_jacoby})")
    return 0
