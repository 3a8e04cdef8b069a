"""bgsim's players as UBGI engines: ``bgsim ubgi SPEC`` answers a controller on stdin/stdout.

Any player spec (``nn+nn``, ``heuristic+pipdiff``, ``exact``, ``gnubg``,
``gnubg-program(plies=2)``, ``bgsage(plies=1)``, ``random``...) is served; the lines are those of
``bgsim/interchange/ubgi.py`` (read with ``parse_command``, written with the answer classes), so
the server and bgsim's controller speak the same protocol by construction.  ``docs/UBGI.md``
says what a controller can expect; in short:

* every required command of UBGI v0.2 (``ubgi``, ``isready``, ``newgame``, ``position gnubgid``,
  ``dice``, ``go``/``go chequer``, ``set``, ``get``, ``keys``, ``quit``) and the optional
  ``position xgid``, ``go cube`` and ``go turn``; bgsim's extension ``go take`` ->
  ``besttake take|pass|beaver`` (advertised by the key ``bgsim.take``); v0.1's ``setoption``,
  ``newsession``, ``setscore``, ``setcube`` and ``setturn`` as the same settings;
* keys: ``engine.seed`` (the seat's random stream: the same seed and the same commands give the
  same answers), ``engine.ply`` where the served bots have a depth (``plies``) whose numbering
  bgsim knows (counted from the root as v0.2 says: GNU Backgammon's 0-ply is 1), ``bgsim.take``,
  and the ``game.*`` keys of the codec, which a ``position xgid`` sets all at once;
* every bad line gets one ``error CODE detail`` line of v0.2's four codes and the server goes on;
  a bot that fails (an outside program that stopped) is ``error bad_state`` with its message;
  nothing but end of input or ``quit`` ends it.  Every line is flushed as it is written.

A decision's random draws come from ``RandomStream(seed, game, stream)`` with the game counted
by ``newgame`` since ``engine.seed`` was last set (0 before the first), one stream a game for the
seat, so a served ``random`` plays the same games for the same seed and commands, and a
controller that sets a seed for every game (bgsim's) gets the same game whichever process
plays it.
"""

from __future__ import annotations

import sys
from typing import Callable, TextIO

from bgsim.cube import CubeView, Response
from bgsim.dice import WHITE_STREAM, RandomStream
from bgsim.interchange import ubgi
from bgsim.interchange.xgid import CENTRE, OPPONENT, Xgid
from bgsim.rules import legal_plays

from .params import SpecError
from .registry import BotPlayer, make_player

AUTHOR = "bgsim"
SEED_KEY = "engine.seed"
PLY_KEY = "engine.ply"
MAX_SEED = (1 << 63) - 1
# v0.1's ``setoption`` names for the settings the server has
OPTION_NAMES = {"seed": SEED_KEY, "engine.seed": SEED_KEY, "ply": PLY_KEY, "engine.ply": PLY_KEY,
                "plies": PLY_KEY}


def ply_offset(bot) -> int | None:
    """How much more than the bot's ``plies`` UBGI's root-inclusive ``engine.ply`` counts, or
    None when the bot has no depth, or one bgsim does not know how to count."""
    if not any(param.key == "plies" for param in getattr(bot, "PARAMS", ())):
        return None
    return getattr(bot, "ubgi_ply_offset", None)


class Server:
    """One UBGI engine session serving ``spec``: :meth:`handle` answers one line."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.player: BotPlayer = make_player(spec)
        self.seed = 1
        self.game = 0
        self.stream = RandomStream(self.seed, self.game, WHITE_STREAM)
        self.situation: ubgi.Situation | None = None
        self.values: dict[str, str] = {}
        self.dice: tuple[int, int] | None = None
        self.take_on = True
        self.quit = False
        depths = [ply_offset(self.player.checker), ply_offset(self.player.cube)]
        self.ply_offsets = [offset for offset in depths if offset is not None]

    # --- keys ---------------------------------------------------------------------------------

    def engine_keys(self) -> list[ubgi.Key]:
        keys = [ubgi.Key(SEED_KEY, "int", self.seed, minimum=0, minor=True,
                         description="seed of the player's own random draws")]
        if self.ply_offsets:
            low, high = self._ply_range()
            keys.append(ubgi.Key(PLY_KEY, "int", self._ply(), minimum=low, maximum=high,
                                 description="root-inclusive depth (1 = every play evaluated, no look-ahead)"))
        keys.append(ubgi.Key(ubgi.TAKE_KEY, "bool", self.take_on, minor=True,
                             description="answers go take with besttake take|pass|beaver (bgsim's extension)"))
        return keys

    def _depth_bots(self):
        return [bot for bot in (self.player.checker, self.player.cube) if ply_offset(bot) is not None]

    def _ply(self) -> int:
        bot = self._depth_bots()[0]
        return bot.plies + ply_offset(bot)

    def _ply_range(self) -> tuple[int, int]:
        lows, highs = [], []
        for bot in self._depth_bots():
            param = next(param for param in bot.PARAMS if param.key == "plies")
            lows.append(int(param.minimum) + ply_offset(bot))
            highs.append(int(param.maximum) + ply_offset(bot))
        return max(lows), min(highs)

    def _set_ply(self, value: int) -> None:
        """Both bots of the seat at UBGI depth ``value``, where they have a depth."""
        checker, cube = self.player.checker, self.player.cube

        def respec(bot) -> str:
            spec = bot.spec
            offset = ply_offset(bot)
            if offset is None:
                return spec
            values = {param.key: getattr(bot, param.key) for param in bot.PARAMS}
            values["plies"] = value - offset
            return type(bot)(**values).spec

        spec = respec(checker) if cube.name == "none" else f"{respec(checker)}+{respec(cube)}"
        self.player = make_player(spec)
        self.spec = spec

    def _all_keys(self) -> dict[str, ubgi.Key]:
        keys = {key.name: key for key in self.engine_keys()}
        keys.update({key.name: key for key in self._situation().game_keys()})
        return keys

    def _value(self, name: str) -> str:
        if name == SEED_KEY:
            return str(self.seed)
        if name == PLY_KEY and self.ply_offsets:
            return str(self._ply())
        if name == ubgi.TAKE_KEY:
            return ubgi.format_bool(self.take_on)
        values = self._situation().game_values()
        if name in values:
            return values[name]
        raise ubgi.UbgiError(f"{name}: no such key (keys lists them)", "unsupported")

    def _set(self, name: str, text: str) -> None:
        keys = self._all_keys()
        if name not in keys:
            raise ubgi.UbgiError(f"{name}: no such key (keys lists them)", "unsupported")
        value = keys[name].value_of(text)
        if name == SEED_KEY:
            if value > MAX_SEED:
                raise ubgi.UbgiError(f"{SEED_KEY} must_be 0..{MAX_SEED}, got {value}", "bad_value")
            self.seed = value
            self.game = 0  # a seed set for a game: its draws do not depend on the games before
            self.stream = RandomStream(self.seed, self.game, WHITE_STREAM)
        elif name == PLY_KEY:
            self._set_ply(value)
        elif name == ubgi.TAKE_KEY:
            self.take_on = value
        else:
            trial = dict(self.values)
            trial[name] = keys[name].format(value)
            base = self.situation or ubgi.Situation()
            base.with_game_values({name: trial[name]})  # refused here, before it is kept
            self.values = trial
            if self.situation is not None:
                self.situation = self.situation.with_game_values({name: trial[name]})

    def _situation(self) -> ubgi.Situation:
        return self.situation if self.situation is not None else ubgi.Situation().with_game_values(self.values)

    # --- one line -----------------------------------------------------------------------------

    def handle(self, line: str) -> list[str]:
        """The answer lines to one controller line (none for a line that needs no answer)."""
        if not line.strip():
            return []
        try:
            message = ubgi.parse_command(line)
            return self._answer(message)
        except ubgi.UbgiError as error:
            return [ubgi.error_line(error.code, str(error))]
        except (SpecError, ValueError) as error:
            return [ubgi.error_line("bad_value", str(error))]
        except Exception as error:  # a bot that failed: the session goes on
            return [ubgi.error_line("bad_state", f"{type(error).__name__}: {error}")]

    def _answer(self, message) -> list[str]:
        kind = type(message)
        if kind is ubgi.Ubgi:
            return [ubgi.Id("name", f"bgsim {self.spec}").line(), ubgi.Id("author", AUTHOR).line(),
                    ubgi.Proto(ubgi.PROTOCOL).line(), ubgi.UbgiOk().line()]
        if kind is ubgi.IsReady:
            return [ubgi.ReadyOk().line()]
        if kind is ubgi.Keys:
            return [key.line() for key in self._all_keys().values()]
        if kind is ubgi.Quit:
            self.quit = True
            return []
        if kind is ubgi.Stop:
            return []  # nothing runs between lines: there is nothing to stop
        if kind is ubgi.NewGame:
            self.game += 1
            self.stream = RandomStream(self.seed, self.game, WHITE_STREAM)
            self.dice = None
            return []
        if kind is ubgi.Set:
            self._set(message.key, message.value)
            return []
        if kind is ubgi.Get:
            return [ubgi.Value(message.key, self._value(message.key)).line()]
        if kind is ubgi.SetOption:
            name = OPTION_NAMES.get(message.name.lower(), message.name)
            self._set(name, message.value)
            return []
        if kind is ubgi.PositionCommand:
            return self._position(message)
        if kind is ubgi.Dice:
            self.dice = message.roll
            return []
        if kind is ubgi.Go:
            return self._go(message.role)
        if kind is ubgi.NewSession:
            values = {"game.match_length": str(message.length or 0) if message.type == "match" else "0"}
            if message.jacoby is not None and message.type == "money":
                values["game.jacoby"] = ubgi.format_bool(message.jacoby)
            if message.crawford is not None and message.type == "match":
                values["game.crawford"] = ubgi.format_bool(message.crawford)
            for name, text in values.items():
                self._set(name, text)
            return []
        if kind is ubgi.SetScore:
            self._set("game.score_self", str(message.first))
            self._set("game.score_opponent", str(message.second))
            return []
        if kind is ubgi.SetCube:
            self._set("game.cube", str(message.value))
            self._set("game.cube_owner", {"center": "centre", "p0": "self", "p1": "opponent"}[message.owner])
            return []
        if kind is ubgi.SetTurn:
            if message.player != "p0":
                raise ubgi.UbgiError("setturn p1: positions are read from the side on roll (p0)", "unsupported")
            return []
        raise ubgi.UbgiError(f"{message.line()}: not a command an engine answers", "unsupported")

    def _position(self, message: ubgi.PositionCommand) -> list[str]:
        if message.kind == "xgid":
            situation = ubgi.Situation.from_xgid(message.text)
            self.values = {name: text for name, text in situation.game_values().items()}
            if situation.dice != (0, 0):
                self.dice = situation.dice
        else:
            situation = ubgi.Situation(position=message.position).with_game_values(self.values)
        self.situation = situation
        return []

    # --- decisions ------------------------------------------------------------------------------

    def _go(self, role: str) -> list[str]:
        if self.situation is None:
            raise ubgi.UbgiError("missing position: send position gnubgid ID first", "bad_state")
        situation = self.situation
        if situation.variant != "standard":
            self.player.check_variant(situation.variant)
        if role == "chequer":
            return [ubgi.BestMove(self._play_text(situation)).line()]
        if role == "cube":
            return [ubgi.BestCube(self._doubles(situation)).line()]
        if role == "turn":
            if self._doubles(situation):
                return [ubgi.BestTurn(True).line()]
            move = ubgi.BestMove(self._play_text(situation)) if self.dice is not None else None
            return [ubgi.BestTurn(False, move).line()]
        if role == "take":
            if not self.take_on:
                raise ubgi.UbgiError("go take is off (set bgsim.take true)", "unsupported")
            return [ubgi.BestTake(self._answer_double(situation)).line()]
        raise ubgi.UbgiError(f"go {role}: not a decision this engine makes", "unsupported")

    def _tell(self, situation: ubgi.Situation) -> None:
        """Tell the bots that weigh a play by the cube and score what they are here."""
        for bot in (self.player.checker, self.player.cube):
            see = getattr(bot, "see", None)
            if see is not None:
                see(Xgid(cube_value=situation.cube_value, cube_owner=situation.cube_owner,
                         score=situation.score, match_to=situation.match_to, crawford=situation.crawford,
                         jacoby=situation.jacoby and not situation.match_to,
                         beaver=situation.beaver and not situation.match_to,
                         cube_limit=min(situation.max_cube, 1 << 15)))

    def _play_text(self, situation: ubgi.Situation) -> str:
        if self.dice is None:
            raise ubgi.UbgiError("missing dice: send dice D1 D2 first", "bad_state")
        position = situation.position
        plays = legal_plays(position, self.dice)
        if not plays:
            return ubgi.bestmove_text(None)
        self._tell(situation)
        chosen = self.player.choose_play(position, self.dice, plays, self.stream)
        return ubgi.bestmove_text(chosen)

    def view(self, situation: ubgi.Situation) -> CubeView:
        """The cube as bgsim's cube bots see it, the side on roll of ``situation`` the doubler."""
        match_to = situation.match_to
        away = (match_to - situation.score[0], match_to - situation.score[1]) if match_to else (0, 0)
        return CubeView(
            value=situation.cube_value, centred=situation.cube_owner == CENTRE, max_cube=situation.max_cube,
            beaver_allowed=bool(situation.beaver and not match_to and situation.cube_value * 4 <= situation.max_cube),
            jacoby=bool(situation.jacoby and not match_to), match_to=match_to, away=away,
            post_crawford=bool(match_to and not situation.crawford and match_to - 1 in situation.score))

    def may_double(self, situation: ubgi.Situation) -> bool:
        """bgsim's rule (``bgsim.cube.Cube.may_double``): not in the Crawford game, not the
        opponent's cube, not past the highest cube."""
        return (not situation.crawford and situation.cube_owner != OPPONENT
                and situation.cube_value * 2 <= situation.max_cube)

    def _doubles(self, situation: ubgi.Situation) -> bool:
        if not self.may_double(situation):
            return False
        self._tell(situation)
        return bool(self.player.offer_double(situation.position, self.view(situation)))

    def _answer_double(self, situation: ubgi.Situation) -> Response:
        if not self.may_double(situation):
            raise ubgi.UbgiError("go take: the side on roll may not double here (cube, Crawford or the "
                                 "highest cube)", "bad_state")
        self._tell(situation)
        view = self.view(situation)
        answer = Response(self.player.respond_to_double(situation.position, view))
        if answer is Response.BEAVER and not view.beaver_allowed:
            answer = Response.TAKE
        return answer


def serve(spec: str, lines: TextIO = sys.stdin, out: TextIO = sys.stdout,
          make: Callable[[str], Server] = Server) -> int:
    """Answer the controller line by line until ``quit`` or the end of input; 0."""
    server = make(spec)
    for line in lines:
        for answer in server.handle(line):
            out.write(answer + "\n")
            out.flush()
        if server.quit:
            break
    return 0
