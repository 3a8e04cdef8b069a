"""``bgsim ubgi SPEC`` (a bgsim player served as a UBGI engine on stdin/stdout) and ``bgsim check
ENGINE`` (a UBGI engine played through probe positions and graded).

``bgsim ubgi`` is started by controllers (bgci, bgsim's own ``ubgi:NAME`` players), so it
imports only the server (``bots/ubgi_server.py``) and writes nothing but protocol lines on
stdout: a bad SPEC is one ``bgsim: error:`` line on stderr and exit status 2 before the
handshake.
"""

from __future__ import annotations

import json
import sys

from experiments.commands.arguments import EXIT_DONE, EXIT_FAILED, engines_flag, json_flag


def register(subparsers) -> None:
    serve = subparsers.add_parser(
        "ubgi",
        help="serve a bgsim player as a UBGI engine on stdin/stdout (for bgci and other controllers)",
        description="Answer a UBGI controller on stdin/stdout as the player SPEC (any player spec, "
        "e.g. nn+nn, heuristic+pipdiff, exact, gnubg-program(plies=2), bgsage): every required "
        "command of UBGI v0.2, go cube and go turn, position xgid, bgsim's go take extension "
        "(advertised by the key bgsim.take), engine.seed for the same answers again, engine.ply "
        "where the bots have a depth; every bad line gets an `error CODE detail` line and the "
        "engine goes on.  docs/UBGI.md says it all.")
    serve.add_argument("spec", metavar="SPEC", help="the player to serve, e.g. nn+nn (see `bgsim bots`)")
    serve.set_defaults(handler=run_ubgi)

    from experiments.studies.engine_check import LEVELS

    check = subparsers.add_parser(
        "check", help="put a UBGI engine through probe positions and say which compliance level it reaches",
        description="Start ENGINE and ask it, as bgsim's controller does in a game, a checker play, a cube "
        "decision or an answer to a double in probe positions (no legal play, doubles, the bar, bearing off "
        "with a larger die, only the larger die, centred, owned and the opponent's cube, a Crawford game, a "
        "Jacoby money game, a match score), then bad lines; every answer is refereed.  It prints what the "
        "engine answered and what was legal, and its compliance level: " + ", ".join(LEVELS) + " (each "
        "needs the ones before it; docs/UBGI.md says what each means).")
    check.add_argument("engine", metavar="ENGINE",
                       help="ubgi:NAME (an engine of an engines file) or a bgsim player spec, served by "
                            "`bgsim ubgi SPEC` in a process of its own")
    engines_flag(check)
    check.add_argument("--level", choices=LEVELS[1:], default="full",
                       help="exit 0 when the engine reaches at least this level, else 1 (default full)")
    json_flag(check)
    check.set_defaults(handler=run_check)


def run_ubgi(args) -> int:
    from bots.ubgi_server import Server, serve

    server = Server(args.spec)  # a bad spec is a SpecError here, before any protocol line
    sys.stdin.reconfigure(errors="replace")  # bytes that are not UTF-8 are a bad line, not the end
    try:
        return serve(args.spec, iter(sys.stdin.readline, ""), sys.stdout, make=lambda spec: server)
    except KeyboardInterrupt:
        return 130


def run_check(args) -> int:
    from experiments.studies.engine_check import LEVELS, format_summary, run_check as check

    engine = _engine(args)
    report = check(engine, log=None if args.json else print)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(format_summary(report))
    return EXIT_DONE if LEVELS.index(report.level) >= LEVELS.index(args.level) else EXIT_FAILED


def _engine(args):
    """The EngineSpec ENGINE names: an engines file's for ``ubgi:NAME``, else ``bgsim ubgi SPEC``."""
    from bots import make_player
    from bots.params import SpecError
    from bots.ubgi import PREFIX
    from experiments.studies.engine_check import served_spec

    text = args.engine.strip()
    if text.startswith(PREFIX):
        from experiments.running.engines import engine_table

        engines = engine_table(args.engines)
        name = text[len(PREFIX):]
        if name not in engines:
            known = ", ".join(sorted(engines)) or "none is declared"
            raise SpecError(f"{text!r}: no engine named {name!r} in the engines files (known: {known}; docs/UBGI.md)")
        return engines[name]
    if args.engines is not None:
        raise ValueError("--engines is where ubgi:NAME engines are found: it has no effect on a bgsim player spec")
    make_player(text)  # a bad spec is one line here, before anything is started
    return served_spec(text)
