"""A small UBGI engine for the controller's tests: it answers at once, or misbehaves on purpose.

    python tests/fake_ubgi_engine.py MODE [ARG]

Modes: ``good`` (v0.2, keys engine.seed, engine.style and engine.ply, the last a searching
engine's depth, taken and ignored; plays a legal play chosen by its seed, never doubles),
``take`` (``good`` with bgsim's take extension: passes every double, doubles at its first
chance), ``v01`` (v0.1: option lines, no proto, go role ..., no xgid),
``keys`` (``good`` that lists game.* keys and reads no XGID), ``garbage`` (answers go with a
line that is not UBGI), ``illegal`` (answers an illegal play), ``wrong-side`` (plays the
opponent's play in the opponent's numbering), ``die`` (exits after ARG decisions),
``hang-handshake`` (never answers ubgi), ``hang-go`` (never answers go), ``proto`` (speaks
UBGI 9.9), ``child`` (``good`` that starts a child process writing its pid and its own to the
file ARG), ``refuse`` (refuses every set with an error), ``noise`` (prints non-UBGI lines
only), ``gate`` (``good``; ARG is FOLDER:N: every process notes each ``newgame`` in FOLDER,
and the first process to start holds its first answer until N games have begun in all of
them: a slow engine, slow for as long as the others need, not for a length of time).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    arg = sys.argv[2] if len(sys.argv) > 2 else ""
    if mode == "hang-handshake":
        sys.stdin.readline()
        time.sleep(3600)
        return
    if mode == "noise":
        for line in sys.stdin:
            for _ in range(30):
                print("Welcome to the engine! It is a lovely day.", flush=True)
        return
    if mode == "child":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        with open(arg, "w") as handle:
            handle.write(f"{child.pid}\n")
    from bgsim import Position
    from bgsim.interchange.ubgi import Situation, bestmove_text
    from bgsim.rules import legal_plays

    gate = None  # (the games file, N) of the one process of mode gate that holds its first answer
    if mode == "gate":
        folder, _, count = arg.rpartition(":")
        try:
            os.close(os.open(os.path.join(folder, "slow"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            gate = (os.path.join(folder, "games"), int(count))
        except FileExistsError:
            pass
    legacy = mode == "v01"
    seed = 0
    position = Position.start()
    dice = None
    decisions = 0  # in this game
    total = 0  # since the engine started
    doubled = False

    def say(text: str) -> None:
        print(text, flush=True)

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        head = words[0]
        if head == "ubgi":
            say("id name fake-" + mode)
            say("id author the tests")
            if mode == "proto":
                say("proto 9.9")
            elif not legacy:
                say("proto 0.2")
            if legacy:
                say("option name Seed type spin default 0 min 0 max 4294967295")
                say("option name Threads type spin default 1 min 1 max 8")
            say("ubgiok")
        elif head == "keys":
            say("key engine.seed int * 0 ! rng seed")
            say("key engine.style enum first|random random how it picks")
            say("key engine.ply int 1..4 1 ! root-inclusive depth (ignored: it plays by its seed)")
            if mode == "take":
                say("key bgsim.take bool true ! answers go take")
            if mode == "keys":
                say("key game.match_length int 0..* 0 !")
                say("key game.cube int 1..* 1 !")
        elif head == "isready":
            say("readyok")
        elif head == "set" or head == "setoption":
            if mode == "refuse":
                say("error bad_value no")
            elif "engine.seed" in words or "Seed" in words:
                seed = int(words[-1])
        elif head == "position":
            if words[1] == "xgid" and mode in ("v01", "keys"):
                say("error unsupported position_xgid")
            elif words[1] == "gnubgid":
                position = Position.from_position_id(words[2])
            else:
                position = Situation.from_xgid(words[2]).position
        elif head == "dice":
            dice = (int(words[1]), int(words[2]))
        elif head == "go":
            role = words[2] if len(words) > 2 and words[1] == "role" else (words[1] if len(words) > 1 else "chequer")
            decisions += 1
            total += 1
            if mode == "die" and total > int(arg or 0):
                sys.exit(3)
            if mode == "hang-go":
                time.sleep(3600)
            while gate is not None:
                with open(gate[0]) as handle:
                    if len(handle.readlines()) >= gate[1]:
                        gate = None
                        break
                time.sleep(0.01)  # waits for an event (the others' games), whatever it takes
            if role == "cube":
                answer = "bestcube double" if mode == "take" and not doubled else "bestcube nodouble"
                doubled = doubled or answer.endswith(" double")
            elif role == "take":
                answer = "besttake pass"
            else:
                plays = legal_plays(position, dice)
                if mode == "garbage":
                    answer = "I think 24/18 looks nice"
                elif mode == "illegal":
                    answer = "bestmove 24/10 13/12"
                elif mode == "wrong-side":
                    theirs = legal_plays(position.turned(), dice)
                    answer = "bestmove " + bestmove_text(theirs[0] if theirs else None)
                else:
                    chooser = random.Random(seed * 1_000_003 + decisions)
                    answer = "bestmove " + bestmove_text(chooser.choice(plays) if plays else None)
            say(answer)
        elif head == "quit":
            return
        elif head == "newgame":
            decisions = 0
            if mode == "gate":
                with open(os.path.join(arg.rpartition(":")[0], "games"), "a") as handle:
                    handle.write("newgame\n")
        elif head in ("newsession", "setscore", "setcube", "setturn"):
            pass
        else:
            say(f"error bad_command {head}")


if __name__ == "__main__":
    main()
