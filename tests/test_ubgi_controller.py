"""The UBGI controller (bots/ubgi.py) against fake engines (tests/fake_ubgi_engine.py) that
answer at once or misbehave on purpose: the handshake, options, the referee, every forfeit with
its row and engine log, the restart for the next game, the take extension, games side by side,
and no engine process left behind.  No outcome here depends on how long anything takes: an
engine that never answers meets a tiny deadline, so the timeout is certain."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bgsim import Position
from bgsim.cube import Rules
from bgsim.decisions import FORFEIT_REASONS
from bgsim.game import DecisionContext, MatchContext
from bgsim.series import engine_for, play_games
from bots import make_player
from bots.ubgi import EngineError, EngineLog, EngineSpec, UbgiPlayer, close_all, live_processes

FAKE = str(Path(__file__).resolve().parent / "fake_ubgi_engine.py")
RANDOM = make_player("random")


def spec(mode: str, name: str = "fake", arg: str | None = None, **options) -> EngineSpec:
    command = (sys.executable, FAKE, mode) + ((arg,) if arg is not None else ())
    return EngineSpec(name, command, **options)


@pytest.fixture(autouse=True)
def nothing_left_running():
    yield
    close_all()
    assert live_processes() == []


def test_the_handshake_says_who_the_engine_is_and_how_it_hears_the_cube():
    player = UbgiPlayer(spec("good", options=(("engine.style", "first"),)))
    identity = player.start()
    assert (identity.id_name, identity.id_author, identity.protocol) == ("fake-good", "the tests", "0.2")
    assert identity.xgid and identity.context == "xgid" and not identity.take
    assert "key engine.seed int * 0 ! rng seed" in identity.keys
    assert identity.sha256 and dict(identity.files)[FAKE]
    assert identity.fingerprint()["options"] == {"engine.style": "first"}
    player.close()


def test_a_v01_engine_gets_setoption_go_role_and_v01s_session_lines():
    player = UbgiPlayer(spec("v01", options=(("Threads", 2),)))
    identity = player.start()
    assert identity.protocol == "0.1" and not identity.xgid and identity.context == "v0.1 session lines"
    assert "> setoption name Threads value 2" in list(player.process.transcript)
    rows = play_games(player, RANDOM, seed=2, games=1)
    assert rows["forfeit"].isna().all()
    said = list(player.process.transcript)
    assert any(line.startswith("> go role chequer") for line in said)
    assert any(line.startswith("> newsession type money") for line in said)


def test_an_option_the_engine_does_not_declare_is_refused_naming_it():
    with pytest.raises(EngineError, match="option 'engine.plies' is not one of its settings .*engine.seed"):
        UbgiPlayer(spec("good", options=(("engine.plies", 2),))).start()
    with pytest.raises(EngineError, match="engine.style"):
        UbgiPlayer(spec("good", options=(("engine.style", "clever"),))).start()
    with pytest.raises(EngineError, match="refused its options"):
        UbgiPlayer(spec("refuse", options=(("engine.seed", 3),))).start()


@pytest.mark.parametrize("mode, start, message", [
    ("hang-handshake", 0.05, "no answer to ubgi within 0.05 s"),  # never answers: the deadline decides
    ("proto", 30, "speaks UBGI 9.9"),
    ("noise", 30, "lines that are not UBGI in answer to ubgi"),
])
def test_an_engine_that_fails_its_handshake_is_one_line_naming_it(mode, start, message):
    with pytest.raises(EngineError) as caught:
        UbgiPlayer(spec(mode, start_timeout=start)).start()
    assert message in str(caught.value) and "engine fake" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_command_that_does_not_exist_is_one_line():
    with pytest.raises(EngineError, match="cannot run 'no-such-engine-here --ubgi'"):
        UbgiPlayer(EngineSpec("ghost", ("no-such-engine-here", "--ubgi"))).start()


@pytest.mark.parametrize("mode, reason, timeout", [
    ("garbage", "malformed", 30), ("illegal", "illegal", 30), ("wrong-side", "wrong_side", 30),
    ("die", "crash", 30), ("hang-go", "timeout", 0.05), ("refuse", "error", 30),
])
def test_every_misbehaviour_forfeits_the_game_and_the_engine_starts_again(tmp_path, mode, reason, timeout):
    log = tmp_path / "engines.log"
    player = UbgiPlayer(spec(mode, timeout=timeout), log=EngineLog(log))
    player.start()
    rows = play_games(player, RANDOM, seed=4, games=2)
    assert list(rows["forfeit"]) == ["white", "white"]
    assert list(rows["winner"]) == ["black", "black"]
    assert list(rows["result"]) == ["forfeit", "forfeit"]
    assert list(rows["points"]) == [3 * value for value in rows["cube_value"]]  # a backgammon at the cube
    assert all(text.startswith(f"{reason}: ubgi:fake ") for text in rows["forfeit_reason"])
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [entry["game"] for entry in entries] == [0, 1]  # started again for the second game
    for entry in entries:
        assert entry["reason"] == reason and entry["engine"] == "fake" and entry["side"] == "white"
        if reason != "error":  # refused before its first move: no position asked yet
            assert entry["position_id"] and entry["xgid"].startswith("XGID=")
    if reason in ("malformed", "illegal", "wrong_side"):
        assert entries[0]["dice"] and entries[0]["answer"] in entries[0]["said"][-1]
    assert reason in FORFEIT_REASONS and player.stats()["forfeits"] == 2


def test_a_forfeit_in_a_match_costs_what_the_winner_needed_and_the_match_goes_on():
    player = UbgiPlayer(spec("illegal"))
    rows = play_games(RANDOM, player, seed=1, games=1, match_to=5)
    assert list(rows["forfeit"]) == ["black"] * len(rows)
    assert rows["points_counted"].sum() == 5 and rows["white_score"].iloc[-1] + rows["points_counted"].iloc[-1] == 5


def test_the_take_extension_asks_the_engine_and_its_pass_ends_the_game():
    player = UbgiPlayer(spec("take"))
    assert player.start().take
    assert "> set bgsim.take true" in list(player.process.transcript)
    doubler = make_player("random+pipdiff(double=0%,redouble=0%)")
    rows = play_games(doubler, player, seed=3, games=2)
    assert (rows["result"] == "drop").all() and (rows["winner"] == "white").all()
    assert "> go take" in list(player.process.transcript)


def test_an_engine_without_the_extension_takes_every_double_and_a_cube_bot_may_answer_for_it():
    doubler = make_player("random+pipdiff(double=0%,redouble=0%)")
    plain = UbgiPlayer(spec("good"))
    rows = play_games(doubler, plain, seed=3, games=1)
    assert rows["doubles"].iloc[0] >= 1 and rows["result"].iloc[0] != "drop"
    answered = make_player("ubgi:fake+never-take", engines={"fake": spec("good")})
    assert answered.name == "ubgi:fake+never-take"
    rows = play_games(doubler, answered, seed=3, games=1)
    assert rows["result"].iloc[0] == "drop"


def test_an_unknown_engine_name_is_refused_naming_what_is_declared():
    with pytest.raises(ValueError, match="no engine named 'nope' .*known: fake"):
        make_player("ubgi:nope", engines={"fake": spec("good")})
    with pytest.raises(ValueError, match="ubgi:NAME or ubgi:NAME\\+CUBE"):
        make_player("ubgi:fake+keith+thorp", engines={"fake": spec("good")})


def test_external_players_play_on_the_reference_engine_and_fast_refuses_them_in_one_line():
    player = make_player("ubgi:fake", engines={"fake": spec("good")})
    assert engine_for("auto", player, RANDOM) == "reference"
    with pytest.raises(ValueError, match="the fast engine cannot play ubgi:fake"):
        engine_for("fast", player, RANDOM)
    with pytest.raises(ValueError, match="cannot play dutch"):
        player.check_variant("dutch")
    with pytest.raises(ValueError, match="does not say it plays nackgammon"):
        player.check_variant("nackgammon")


def test_the_same_seed_gives_the_same_rows_one_game_at_a_time_or_side_by_side():
    engines = {"fake": spec("good")}
    one = play_games(make_player("ubgi:fake", engines=engines), RANDOM, seed=9, games=3)
    player = make_player("ubgi:fake", engines=engines)
    both = play_games(player, RANDOM, seed=9, games=3, threads=2)
    assert len(player.forks(2)) == 2 and player.forks(2)[1].process is not None  # a process of its own
    assert one.equals(both) and one["forfeit"].isna().all()


def test_a_slow_engine_holds_up_only_its_own_games_when_games_play_side_by_side(tmp_path):
    # one of the two processes answers its first decision only once 4 games have begun: the
    # other thread must have taken games 1, 2 and 3 meanwhile (a thread takes the next game as
    # it finishes one).  Were the games split between the threads beforehand, that engine would
    # wait out its timeout and forfeit.
    (tmp_path / "games").touch()
    player = make_player("ubgi:gate", engines={"gate": spec("gate", "gate", arg=f"{tmp_path}:4", timeout=120)})
    rows = play_games(player, RANDOM, seed=2, games=4, threads=2)
    assert (tmp_path / "slow").exists() and len((tmp_path / "games").read_text().splitlines()) == 4
    assert len(rows) == 4 and rows["forfeit"].isna().all()


def test_the_cube_and_the_score_reach_an_engine_without_xgid_through_its_game_keys():
    player = UbgiPlayer(spec("keys"))
    assert player.start().context == "game keys" and not player.identity.xgid
    match = MatchContext(match_to=3, white_score=1, black_score=0, crawford=False, post_crawford=False,
                         game_in_match=1)
    player.context = DecisionContext(1, 0, "black", False, 4, 2, "white", Rules(), match)
    lines = player._context_lines(player._situation(Position.start(), "black"))
    # only the keys it lists, each set when its value changes; no XGID for an engine that refused one
    assert lines == [f"position gnubgid {Position.start().position_id}", "set game.match_length 3", "set game.cube 2"]
    assert player._context_lines(player._situation(Position.start(), "black")) == lines[:1]
    rows = play_games(RANDOM, player, seed=5, games=1, match_to=3)
    assert rows["forfeit"].isna().all()


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie has ended: it only waits to be reaped)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return status.split("State:")[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_no_engine_process_or_child_of_one_survives_its_player(tmp_path):
    pids = tmp_path / "child.pid"
    player = UbgiPlayer(spec("child", arg=str(pids)))
    player.start()
    engine = player.process.pid
    child = int(pids.read_text())
    assert alive(engine) and alive(child)
    player.close()
    assert not alive(engine)  # our child: reaped before close returns
    assert ended(child)


def ended(pid: int, patience: float = 10.0) -> bool:
    """Whether ``pid`` has ended, allowing a kill the time to arrive: the answer does not depend
    on how long that takes, only a process that is never killed makes it False."""
    import time

    deadline = time.monotonic() + patience
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.parametrize("regime", ["team", "individual"])
def test_in_a_chouette_a_forfeiting_member_leaves_alone_and_a_forfeiting_box_ends_the_game(regime):
    from bgsim.chouette_sessions import play_chouettes

    bad = UbgiPlayer(spec("illegal", name="bad"))
    players = [bad, make_player("random+pipdiff(double=0%,redouble=0%)"), make_player("random"), RANDOM]
    rows = play_chouettes(players, 7, 2, chouette_cubes=regime)  # seed 7: the captain in game 0, the box in 1
    assert (rows.groupby("game")["points"].sum() == 0).all()  # every game still sums to zero
    forfeits = rows[rows["forfeit"]]
    assert set(forfeits["spec"]) == {"ubgi:bad"} and (forfeits["result"] == "forfeit").all()
    assert forfeits["forfeit_reason"].str.startswith("illegal: ubgi:bad ").all()
    for _, row in forfeits.iterrows():
        game = rows[rows["game"] == row["game"]]
        if row["seat"] == "box":  # the game ends: every member wins a backgammon at its cube
            members = game[game["seat"] != "box"]
            assert (members["result"] == "forfeit").all() and (members["winner"] == "team").all()
            assert (members["points"] == 3 * members["cube_value"]).all()
        else:  # it alone leaves, losing a backgammon at its cube; the others play on
            assert row["points"] == -3 * row["cube_value"]
            assert (game[game["spec"] != "ubgi:bad"]["result"] != "forfeit").any()
    assert {"box", "captain"} <= set(forfeits["seat"])


def test_an_engine_judged_as_a_cube_rule_answers_go_cube_and_go_take_and_a_silent_one_stops_the_audit():
    from bots.ubgi import EngineCube
    from experiments.studies.cube_charge import Rule, judge

    race = Position.from_points({6: 3, 5: 3, 4: 2}, {19: 3, 20: 3, 21: 2})
    taker = EngineCube(UbgiPlayer(spec("take")))
    rows = judge(race.position_id, [Rule("ubgi:fake", taker)])
    assert [(row["question"], row["answer"]) for row in rows] == [("double", "double"), ("redouble", "no double"),
                                                                  ("take", "pass")]
    silent = EngineCube(UbgiPlayer(spec("hang-go", name="mute", timeout=0.05)))
    with pytest.raises(EngineError) as caught:
        judge(race.position_id, [Rule("ubgi:mute", silent)])
    assert "engine mute timeout" in str(caught.value) and race.position_id in str(caught.value)
    with pytest.raises(ValueError, match="leave out \\+CUBE"):
        EngineCube(make_player("ubgi:fake+keith", engines={"fake": spec("good")}))


def test_a_player_factory_travels_to_a_worker_which_starts_engines_of_its_own(tmp_path):
    import pickle

    from bots import EnginePlayers

    factory = EnginePlayers((("fake", spec("good")),), EngineLog(tmp_path / "engines.log"))
    copy = pickle.loads(pickle.dumps(factory))  # what a Dask worker gets
    assert copy == factory and hash(copy) == hash(factory)
    player = copy("ubgi:fake")
    assert isinstance(player, UbgiPlayer) and player.process is None  # started by its first game there
    assert player.log.path == str(tmp_path / "engines.log") and copy("random").name == "random"
