"""Record GNU Backgammon's answers to the cube positions of tests/test_gnubg_judge.py.

Run from the repository root (gnubg must be installed): ``.venv/bin/python
tests/data/gnubg_cube/record.py``.  It writes, for each depth, the script bgsim sends
(``hints_Nply.in``) and all gnubg printed (``hints_Nply.out``).  The positions were found by
asking gnubg about positions of nn self-play games until every category of its answer had come
up: money with and without the Jacoby rule and beavers, matches, cubes gnubg's side may not turn.
"""

from pathlib import Path

from bgsim.interchange.xgid import decode
from bots.gnubg_process import MARK, _cube_commands, cube_setup, run_script

HERE = Path(__file__).parent
STATES = [
    "XGID=-aa---E-C--AdD--ab-d-b--AA:0:0:1:00:0:0:0:0:10",   # no double, take
    "XGID=-CB-CE----------bbbbbcBaa-:0:0:1:00:0:0:2:0:10",   # no double, beaver (beavers on)
    "XGID=-CB-CE----------bbbbbcBaa-:1:1:1:00:0:0:0:0:10",   # no redouble, take
    "XGID=-CB-CE----------bbbbbcBaa-:1:1:1:00:0:0:2:0:10",   # no redouble, beaver
    "XGID=-a--aBCBB---dD-A-d-d----aA:0:0:1:00:0:0:0:0:10",   # double, take
    "XGID=-bBbCDBC---A----aa-bbbba--:1:1:1:00:0:0:0:0:10",   # redouble, take
    "XGID=-ABCaDC-B-a--------bcbbbb-:0:0:1:00:0:0:0:0:10",   # double, pass
    "XGID=-B-----------------abbbad-:1:1:1:00:0:0:0:0:10",   # redouble, pass
    "XGID=aaBBBBBAA------a---db-fAAA:0:0:1:00:0:0:0:0:10",   # too good to double, pass
    "XGID=aaBBBBBAA------a---db-fAAA:0:0:1:00:0:0:1:0:10",   # the same with the Jacoby rule
    "XGID=-aBDD-BC--a----b-abbcc----:1:1:1:00:0:0:0:0:10",   # too good to redouble, pass
    "XGID=aABBCBBA----a-b--c-cc-bAA-:0:0:1:00:5:3:0:7:10",   # too good to double, take (7-point match)
    "XGID=bFbBCC--------a--b-bbbb---:1:1:1:00:0:0:0:3:10",   # too good to redouble, take (3-point match)
    "XGID=-DBBCC----A------------cc-:0:0:1:00:3:4:0:5:10",   # optional double, take (5-point match)
    "XGID=-BC--B------------aa--bgd-:0:0:1:00:0:0:0:0:10",   # optional double, pass
    "XGID=-a--aBCBB---dD-A-d-d----aA:0:0:1:00:4:3:0:7:10",   # double, take at 3-away 4-away
    "XGID=-a--aBCBB---dD-A-d-d----aA:1:-1:1:00:0:0:0:0:10",  # the opponent owns the cube
    "XGID=aaBBBBBAA------a---db-fAAA:0:0:1:00:6:4:0:7:10",   # 1-away after the Crawford game
]


def record(plies: int, states: list[str]) -> None:
    commands = list(cube_setup(plies)) + [f"{MARK}0"]
    for number, text in enumerate(states, 1):
        commands += _cube_commands(decode(text)) + [f"{MARK}{number}"]
    (HERE / f"hints_{plies}ply.in").write_text("\n".join(commands) + "\n")
    (HERE / f"hints_{plies}ply.out").write_text(run_script(commands))


if __name__ == "__main__":
    record(0, STATES)
    record(2, STATES[:2] + STATES[-2:])
