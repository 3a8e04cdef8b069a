"""Another checkout's engine in a worker process, asked for the same measurements in the same
rounds (``bgsim bench --against PYTHON``): one commit against another side by side, never from
two moments of a shared machine.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from .bench_machine import git

# The worker speaks one JSON line in, one out, and uses only what every checkout of bgsim has
# (bots.make_player, bgsim.series.play_games, bgsim.rollout.rollout), so an older commit runs it.
_WORKER = r"""
import json, sys, time
import bgsim
from bots import make_player
from bgsim.series import play_games
players = {}
print(json.dumps({"bgsim": bgsim.__file__}), flush=True)
from contextlib import nullcontext
import bgsim.fast
only_for = getattr(bgsim.fast, "compile_only_for", lambda players: nullcontext())  # as its runs play
for line in sys.stdin:
    ask = json.loads(line)
    player = players.setdefault(ask["player"], make_player(ask["player"]))
    started, cpu = time.perf_counter(), time.process_time()
    if ask["kind"] == "rollout":
        from bgsim.board import Position
        from bgsim.rollout import rollout
        with only_for([player]):
            count = rollout(Position.start(), player, ask["trials"], ask["seed"], threads=ask["threads"]).games
        plies = 0
    else:
        with only_for([player]):
            frame = play_games(player, player, ask["seed"], ask["games"], engine="fast", threads=ask["threads"])
        count, plies = ask["games"], int(frame["plies"].sum())
    seconds = time.perf_counter() - started
    print(json.dumps([count / seconds, plies / seconds, (time.process_time() - cpu) / seconds]), flush=True)
"""


class Against:
    """Another checkout's engine in a worker process (``python``: that checkout's interpreter)."""

    def __init__(self, python: str, cwd: Path | None = None) -> None:
        """``cwd``: where the worker starts (default a temporary folder, so that another
        checkout's interpreter cannot import this one's modules from the working directory)."""
        if not Path(python).is_file():
            raise ValueError(f"--against: no Python at {python}")
        # the worker starts in another folder: a path relative to here must still find it
        # (absolute, not resolved: a virtual environment's python is a link it must not leave)
        python = str(Path(python).absolute())
        self.python = python
        self.process = subprocess.Popen([python, "-c", _WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, cwd=cwd or tempfile.gettempdir())
        ready = self.process.stdout.readline()
        if not ready:
            raise ValueError(f"--against: {python} could not import bgsim and bots")
        package = Path(json.loads(ready)["bgsim"]).resolve().parent
        self.root = str(package.parent)
        self.commit = git(["rev-parse", "--short", "HEAD"], package)
        self.clean = git(["status", "--porcelain", "--untracked-files=no"], package) == ""

    def ask(self, **question):
        self.process.stdin.write(json.dumps(question) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError(f"--against: the worker of {self.python} stopped")
        return tuple(json.loads(answer))

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)
