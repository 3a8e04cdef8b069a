"""``bgsim ubgi SPEC`` (a bgsim player served as a UBGI engine on stdin/stdout) and ``bgsim check
ENGINE`` (a UBGI engine played through probe positions and graded).

``bgsim ubgi`` is started by controllers (bgci, bgsim's own ``ubgi:NAME`` players), so it
imports only the server (``bots/ubgi_server.py``) and writes nothing but protocol lines on
stdout: a bad SPEC is one ``bgsim: error:`` line on stderr and exit status 2 before the
handshake.
"""

from __future__ import annotations

import sys


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


def run_ubgi(args) -> int:
    from bots.ubgi_server import Server, serve

    server = Server(args.spec)  # a bad spec is a SpecError here, before any protocol line
    try:
        return serve(args.spec, iter(sys.stdin.readline, ""), sys.stdout, make=lambda spec: server)
    except KeyboardInterrupt:
        return 130
