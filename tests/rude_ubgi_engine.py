"""bgsim's UBGI server with one rule broken on purpose, for ``tests/test_engine_check.py``.

    python tests/rude_ubgi_engine.py MODE

Modes: ``doubles`` (``go cube`` is always ``double``, the opponent's cube and the Crawford game
included), ``beavers`` (``go take`` is always ``beaver``, where beavers are not allowed too),
``silent`` (a bad line gets no answer at all).  Everything else is ``bgsim ubgi random``'s.
"""

from __future__ import annotations

import sys

from bgsim.cube import Response
from bots.ubgi_server import Server, serve


class Rude(Server):
    mode = ""

    def _doubles(self, situation) -> bool:
        return True if self.mode == "doubles" else super()._doubles(situation)

    def _answer_double(self, situation) -> Response:
        return Response.BEAVER if self.mode == "beavers" else super()._answer_double(situation)

    def handle(self, line: str) -> list[str]:
        said = super().handle(line)
        return [] if self.mode == "silent" and said[:1] and said[0].startswith("error ") else said


if __name__ == "__main__":
    Rude.mode = sys.argv[1]
    sys.exit(serve("random", iter(sys.stdin.readline, ""), sys.stdout, make=Rude))
