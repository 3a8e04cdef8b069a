"""``bgsim engines``: the external engines ``ubgi:NAME`` can seat, and what each says of itself.

Every engine declared in ``--engines FILE``, an experiment file's ``[engines]`` (``--experiment
FILE``) and the user's ``bgsim/engines.toml`` is listed with where it is declared and its
command; each is started and shaken hands with (``bots.ubgi``), and what it said is shown: its
``id`` lines, protocol, settings, whether it reads XGIDs and answers bgsim's ``go take``.  An
engine that cannot start is said in one line; the command then exits 1.
"""

from __future__ import annotations

import json

from experiments.commands.arguments import EXIT_DONE, EXIT_FAILED, engines_flag, json_flag


def register(subparsers) -> None:
    engines = subparsers.add_parser(
        "engines", help="list the external (UBGI) engines ubgi:NAME can seat, and what each says in its handshake",
        description="List every engine declared in --engines FILE, the experiment file's [engines] table "
                    "(--experiment) and the user's bgsim/engines.toml, start each one, and show what it said in "
                    "its handshake: id, protocol, settings, how it gets the cube and score, whether it answers "
                    "bgsim's go take (docs/UBGI.md).  Exit 1 if one cannot start.")
    engines_flag(engines)
    engines.add_argument("--experiment", metavar="FILE", default=None,
                         help="also the [engines] table of this experiment file (default: none)")
    json_flag(engines)
    engines.set_defaults(handler=run_engines)


def run_engines(args) -> int:
    from bots.ubgi import EngineError, UbgiPlayer
    from experiments.running.engines import engine_table, user_engines_file

    table, source, text = None, "", ""
    if args.experiment:
        from experiments.running.config import experiment_engines

        table, source, text = experiment_engines(args.experiment)
    engines = engine_table(args.engines, table, source, text)
    found = []
    for name, spec in engines.items():
        player = UbgiPlayer(spec)
        entry = {"name": name, "declared": spec.source, "command": list(spec.command), "timeout_s": spec.timeout,
                 "start_timeout_s": spec.start_timeout}
        try:
            entry["handshake"] = player.start().to_dict()
        except EngineError as error:
            entry["error"] = str(error)
        finally:
            player.close()
        found.append(entry)
    if args.json:
        print(json.dumps({"engines": found, "user_engines_file": str(user_engines_file())}, indent=2))
    elif not found:
        print(f"no engines declared (give --engines FILE, or write {user_engines_file()}; docs/UBGI.md)")
    for entry in [] if args.json else found:
        print(f"{entry['name']}  ({entry['declared']})")
        print(f"  command     {' '.join(entry['command'])}")
        print(f"  timeouts    {entry['timeout_s']:g} s a decision, {entry['start_timeout_s']:g} s to start")
        if "error" in entry:
            print(f"  cannot start: {entry['error']}")
            continue
        said = entry["handshake"]
        print(f"  id          {said['id_name'] or '(no id name)'}"
              + (f" {said['id_version']}" if said["id_version"] else "")
              + (f", by {said['id_author']}" if said["id_author"] else ""))
        print(f"  protocol    UBGI {said['protocol']}; cube and score by {said['context']}; "
              + ("answers go take" if said["take"] else "takes every double (no go take: give it a cube bot, "
                                                       f"ubgi:{entry['name']}+CUBE)"))
        print(f"  executable  {said['executable']} (sha256 {said['sha256'][:16] or '?'}...)")
        for line in said["keys"]:
            print(f"  setting     {line}")
        for key, value in said["options"].items():
            print(f"  set         {key} = {value!r}")
    return EXIT_FAILED if any("error" in entry for entry in found) else EXIT_DONE
