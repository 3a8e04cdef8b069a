"""The ``bgsim`` program: :func:`experiments.cli.main`, behind a start that imports nothing, so
that Ctrl-C while Python loads numpy, Numba and the commands ends as Ctrl-C anywhere else does:
one line and exit status 130, not a traceback."""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130  # experiments.commands.arguments's, not imported: that is what this guards


def main() -> int:
    try:
        from experiments.cli import main as run
    except KeyboardInterrupt:
        print("bgsim: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return run()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
