"""The nn checker bot: both engines compute the same integers and choose the same plays."""

from __future__ import annotations

import numpy as np
import pytest

import bgsim
from bgsim.board import Position
from bgsim.fast.moves import BOARD_BYTES, generate, new_buffers
from bgsim.fast.nn import UNIT, choose, evaluate
from bots.nn import DEFAULT_WEIGHTS, Net, NetError, NNChecker, integer_probabilities, load_net
from bgsim.cube import Rules
from bots import make_player
from bots.params import SpecError
from experiments.studies.training.net import init_params, quantize
from experiments.studies.training.selfplay import PUBEVAL, play_positions


def _random_net(hidden=24, seed=5, scale=4.0, contact=False):
    """A net with random weights, large enough that plays get distinct values (``contact``:
    with random contact rows too, as ``nn`` has since nn-v2)."""
    params = init_params(hidden, seed, contact=contact)
    params["w1"] *= scale
    params["w2"] *= scale
    params["b2"] += np.float32(0.5)
    return quantize(params)


def _zero_net(hidden=8):
    params = init_params(hidden, 1)
    for value in params.values():
        value[...] = 0.0
    return quantize(params)


@pytest.fixture(scope="module")
def positions():
    """Positions from noisy and fully random self-play: openings, contact, bar, bear-off."""
    net = _zero_net()
    out = np.zeros((6000, 26), dtype=np.int8)
    written = play_positions(11, 60, PUBEVAL, 0.3, 0.5, *net.arrays(), out[:3000])
    written2 = play_positions(12, 60, PUBEVAL, 1.0, 0.5, *net.arrays(), out[3000:])
    boards = np.concatenate([out[:written], out[3000:3000 + written2]])
    assert len(boards) > 4000
    return boards


def _nets():
    nets = [_random_net(), _zero_net(), _random_net(seed=6, contact=True)]
    if DEFAULT_WEIGHTS.is_file():
        nets.append(load_net(DEFAULT_WEIGHTS))
    return nets


def test_positions_cover_the_hard_cases(positions):
    bar = (positions[:, 25] > 0).any() and (positions[:, 0] < 0).any()
    bear_off_with_contact = any(
        all(row[p] <= 0 for p in range(7, 26)) and not bgsim.Position(tuple(int(v) for v in row)).is_race
        for row in positions)
    assert bar and bear_off_with_contact


@pytest.mark.parametrize("which", range(len(_nets())))
def test_kernel_evaluation_equals_reference(positions, which):
    net = _nets()[which]
    probabilities = np.zeros(5, dtype=np.int64)
    for row in positions[::2]:
        evaluate(row, *net.arrays(), probabilities)
        expected = integer_probabilities(net, tuple(int(v) for v in row))
        assert np.array_equal(probabilities, expected), row


def _generated(board, roll):
    """(padded board, plays, keys, count, order) of the fast move generator for ``roll``."""
    plays, keys, slots, table, order = new_buffers()
    padded = np.zeros(BOARD_BYTES, dtype=np.int8)
    padded[:26] = board
    count = generate(padded, roll[0], roll[1], plays, keys, slots, table, order)
    return padded, plays, keys, count, order


def _fast_choice(net, board, roll):
    padded, plays, keys, count, order = _generated(board, roll)
    if count == 0:
        return None
    work = np.zeros((2, net.hidden), dtype=np.int32)  # int32 sums, as nn_choose gives the kernel
    index = choose(padded, plays, keys, count, *net.arrays(), work[0], work[1], np.zeros(5, dtype=np.int64))
    return tuple(int(v) for v in plays[index, :26])


# a random net, one with contact inputs and the shipped one (if any)
@pytest.mark.parametrize("which", [0, 2, -1])
def test_both_engines_choose_the_same_play(positions, which):
    net = _nets()[which]
    bot = NNChecker()
    bot.net = net
    rng = np.random.default_rng(abs(which))
    rolls = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    checked = doubles = 0
    for row in positions[rng.choice(len(positions), size=1000, replace=False)]:
        position = Position(tuple(int(v) for v in row))
        roll = rolls[rng.integers(len(rolls))]
        plays = bgsim.legal_plays(position, roll)
        fast = _fast_choice(net, row, roll)
        if not plays:
            assert fast is None
            continue
        assert fast == bot.choose(position, roll, plays, None).result.board, (position.position_id, roll)
        checked += 1
        doubles += roll[0] == roll[1]
    assert checked > 800 and doubles > 60


def _net_at_the_int32_bound():
    """A random net whose first-layer sums reach as close to 2**31 as ``check_net`` allows: the
    slot rows scaled up, and every other unit's bias pushed (either sign) to the bound."""
    net = _random_net(hidden=16, scale=8.0)
    tables, bias, race = (a.astype(np.int64) for a in (net.tables, net.bias, net.race))
    rows = np.abs(tables).max(axis=1).sum(axis=0) * 2
    factor = (2**31 - 1) / (np.abs(bias) + np.abs(race) + rows).max() / 4
    tables, bias, race = (np.trunc(a * factor).astype(np.int64) for a in (tables, bias, race))
    room = 2**31 - 1 - np.abs(race) - np.abs(tables).max(axis=1).sum(axis=0) * 2
    bias[::2] = room[::2] * np.where(np.arange(0, 16, 2) % 4 == 0, 1, -1)
    return Net(tables.astype(np.int32), bias.astype(np.int32), race.astype(np.int32), net.weights2,
               net.bias2, net.sigmoid)


def test_first_layer_sums_at_the_int32_bound_are_exact(positions):
    """The kernel keeps first-layer sums in int32: a net whose sums reach for 2**31 (as far as
    check_net lets them) must still evaluate and choose exactly as the int64 reference."""
    net = _net_at_the_int32_bound()
    sums = net.bias.astype(np.int64) + net.tables.astype(np.int64)[np.arange(26), positions[:, :26] + 15].sum(axis=1)
    assert np.abs(sums).max() > 2**30  # the test reaches far into int32's range
    bot = NNChecker()
    bot.net = net
    probabilities = np.zeros(5, dtype=np.int64)
    rng = np.random.default_rng(3)
    for row in positions[rng.choice(len(positions), size=300, replace=False)]:
        evaluate(row, *net.arrays(), probabilities)
        assert np.array_equal(probabilities, integer_probabilities(net, tuple(int(v) for v in row)))
        position = Position(tuple(int(v) for v in row))
        plays = bgsim.legal_plays(position, (6, 5))
        if plays:
            assert _fast_choice(net, row, (6, 5)) == bot.choose(position, (6, 5), plays, None).result.board


def test_a_tie_goes_to_the_canonical_first_play(positions):
    """With every weight zero all non-winning plays tie: both engines take the first one."""
    net = _zero_net()
    bot = NNChecker()
    bot.net = net
    for row in positions[:300]:
        position = Position(tuple(int(v) for v in row))
        plays = bgsim.legal_plays(position, (4, 2))
        if not plays or any(play.result.checkers_off == 15 for play in plays):
            continue
        assert bot.choose(position, (4, 2), plays, None) is plays[0]
        assert _fast_choice(net, row, (4, 2)) == plays[0].result.board


@pytest.mark.bot_rule("checker", "nn")
def test_bearing_off_the_last_checker_wins():
    position = Position.from_points({1: 1, 2: 1}, {24: 15})
    plays = bgsim.legal_plays(position, (2, 1))
    bot = NNChecker()
    bot.net = _random_net()
    assert bot.choose(position, (2, 1), plays, None).result.checkers_off == 15
    # a backgammon: the loser still has checkers in the winner's home board
    turned = Position.from_points({1: 14, "bar": 1}, {}).board
    assert tuple(integer_probabilities(bot.net, turned)) == (0, 0, 0, UNIT, UNIT)


def test_evaluations_are_probabilities(positions):
    bot = NNChecker()
    bot.net = _random_net()
    for row in positions[::7]:
        win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = bot.evaluate(
            Position(tuple(int(v) for v in row)))
        assert 0.0 <= win_backgammon <= win_gammon <= win <= 1.0
        assert 0.0 <= lose_backgammon <= lose_gammon <= 1.0 - win


@pytest.mark.skipif(not DEFAULT_WEIGHTS.is_file(), reason="no shipped net")
def test_the_shipped_net_likes_the_start_position_evenly():
    win = NNChecker().evaluate(Position.start())[0]
    assert 0.4 < win < 0.6


def test_missing_or_malformed_net_files_are_one_clear_error(tmp_path):
    with pytest.raises(NetError, match="not found"):
        load_net(tmp_path / "absent.npz")
    net = _random_net(hidden=6, contact=True)
    arrays = dict(zip(("tables", "bias", "race", "weights2", "bias2", "sigmoid", "contact"), net.arrays()))
    for name, wrong in [("weights2", arrays["weights2"][:, :5]), ("contact", arrays["contact"][:5]),
                        ("contact", arrays["contact"].T)]:
        np.savez(tmp_path / "bad.npz", **{**arrays, name: wrong})
        with pytest.raises(NetError, match=f"{name} has shape") as caught:
            load_net(tmp_path / "bad.npz")
        assert "\n" not in str(caught.value)
    (tmp_path / "junk.npz").write_text("not a net")
    with pytest.raises(NetError, match="not a readable"):
        load_net(tmp_path / "junk.npz")
    with pytest.raises(SpecError, match="not found"):
        NNChecker.from_text({"weights": str(tmp_path / "absent.npz")})


def test_a_net_file_from_before_the_contact_inputs_loads_unchanged(tmp_path, positions):
    """nn-v1's files have no contact array: they load with zero rows, keep the digest their
    results recorded, and play as before (the contact inputs add nothing)."""
    net = _random_net(hidden=6)
    old = dict(zip(("tables", "bias", "race", "weights2", "bias2", "sigmoid"), net.arrays()))
    np.savez(tmp_path / "old.npz", **old)
    loaded = load_net(tmp_path / "old.npz")
    assert not loaded.reads_contact and not loaded.identity()["contact"]
    assert loaded.contact.shape == (8, 6) and not loaded.contact.any()
    import hashlib

    assert loaded.digest() == hashlib.sha256(b"".join(a.tobytes() for a in old.values())).hexdigest()
    with_contact = _random_net(hidden=6, contact=True)
    assert with_contact.reads_contact and with_contact.digest() != Net(*with_contact.arrays()[:6]).digest()
    for row in positions[:200]:
        board = tuple(int(v) for v in row)
        assert np.array_equal(integer_probabilities(loaded, board), integer_probabilities(net, board))


def test_the_contact_inputs_change_the_evaluation(positions):
    net = _random_net(hidden=16, contact=True)
    without = Net(*net.arrays()[:6])
    changed = sum(not np.array_equal(integer_probabilities(net, tuple(int(v) for v in row)),
                                     integer_probabilities(without, tuple(int(v) for v in row)))
                  for row in positions[:100])
    assert changed > 90


def test_another_net_file_plays(tmp_path, positions):
    net = _random_net(hidden=6)
    net.save(tmp_path / "mine.npz")
    bot = NNChecker.from_text({"weights": str(tmp_path / "mine.npz")})
    assert bot.net.hidden == 6 and bot.spec == f"nn(weights={tmp_path / 'mine.npz'})"
    # it plays the file's net: the choices of that net held in memory, not the shipped net's
    in_memory, shipped = NNChecker.playing(net), NNChecker()
    differ = 0
    for row in positions[:400:4]:
        position = Position(tuple(int(v) for v in row))
        plays = bgsim.legal_plays(position, (5, 3))
        if len(plays) > 1:
            chosen = bot.choose(position, (5, 3), plays, None)
            assert chosen is in_memory.choose(position, (5, 3), plays, None)
            differ += chosen is not shipped.choose(position, (5, 3), plays, None)
    assert differ > 10
    # and the fast engine plays it too: the games of the spec are the in-memory net's
    from bgsim.series import play_games
    from bots.registry import BotPlayer

    spec = make_player(f"nn(weights={tmp_path / 'mine.npz'})")
    fast = play_games(spec, make_player("pubeval"), 2, 3, Rules(cube=False), engine="fast")
    reference = play_games(BotPlayer(in_memory), make_player("pubeval"), 2, 3, Rules(cube=False), engine="reference")
    assert fast.drop(columns=["white"]).equals(reference.drop(columns=["white"]))


@pytest.mark.parametrize("white, black, rules, contact", [
    ("nn", "pubeval", Rules(cube=False), False),
    ("nn", "pubeval", Rules(cube=False), True),
    ("nn+nn", "heuristic+pipdiff", Rules(), True),
    ("nn+nn(x=0.5)", "nn+nn", Rules(jacoby=True, beaver=True), False),
])
def test_whole_games_are_the_same_in_both_engines(white, black, rules, contact, tmp_path):
    from bgsim.fast.sameness import compare_frames
    from bgsim.series import play_games

    net = _random_net(hidden=16, scale=2.0, contact=contact)
    net.save(tmp_path / "random.npz")
    players = []
    for spec in (white, black):
        if spec.startswith("nn") and "heuristic" not in spec:
            spec = spec.replace("nn", f"nn(weights={tmp_path / 'random.npz'})", 1)
        players.append(make_player(spec))
    games = 12
    reference = play_games(*players, seed=3, games=games, rules=rules, engine="reference")
    fast = play_games(*players, seed=3, games=games, rules=rules, engine="fast")
    assert compare_frames(reference, fast) is None
    if rules.cube:
        assert reference["cube_value"].max() > 1  # the nn cube bot doubled and was taken


# --- nn(plies=1): the 1-ply search -----------------------------------------------------------


def _ahead_choice(net, board, roll, keep, margin):
    from bgsim.fast.nn import choose_ahead

    padded, plays, keys, count, order = _generated(board, roll)
    if count == 0:
        return None
    index = choose_ahead(padded, plays, keys, count, keep, round(margin * UNIT), *net.arrays(), order)
    return tuple(int(v) for v in plays[index, :26])


@pytest.mark.parametrize("keep, margin, contact", [(8, 0.16, False), (3, 6.0, False), (4, 0.5, True)])
def test_the_1_ply_search_chooses_the_same_play_in_both_engines(positions, keep, margin, contact):
    """bots.nn.NNChecker(plies=1) and bgsim.fast.nn.choose_ahead, integer for integer: the same
    filter, the same replies, the same sums, the same tie-break."""
    net = _random_net(hidden=16, contact=contact)
    bot = make_player(f"nn(plies=1,keep={keep},margin={margin})").checker
    bot.net = net
    zero_ply = NNChecker()
    zero_ply.net = net
    rng = np.random.default_rng(keep)
    rolls = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    checked = differs = 0
    for row in positions[rng.choice(len(positions), size=40, replace=False)]:
        position = Position(tuple(int(v) for v in row))
        roll = rolls[rng.integers(len(rolls))]
        plays = bgsim.legal_plays(position, roll)
        fast = _ahead_choice(net, row, roll, keep, margin)
        if not plays:
            assert fast is None
            continue
        chosen = bot.choose(position, roll, plays, None).result.board
        assert fast == chosen, (position.position_id, roll)
        checked += 1
        differs += chosen != zero_ply.choose(position, roll, plays, None).result.board
    assert checked > 30 and differs > 0  # the search changed some choices: it is not 0-ply


def test_the_1_ply_search_is_the_average_over_the_replies():
    """A play's 1-ply value is the sum over the 36 rolls of the mover's equity after the
    opponent's best reply: worked by hand from legal_plays and the net for one position."""
    from bots.nn import equity_of, look_ahead, play_value, shipped_net

    net = shipped_net()
    position = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {1: 2, 12: 5, 17: 3, 19: 5})
    play = bgsim.legal_plays(position, (3, 1))[0]
    total = 0
    turned = Position(tuple(-play.result.board[25 - slot] for slot in range(26)))
    for die1 in range(1, 7):
        for die2 in range(1, 7):
            replies = bgsim.legal_plays(turned, (die1, die2))
            best = max(play_value(net, reply.result.board) for reply in replies)
            total += -best
    assert look_ahead(net, play.result.board) == total
    # a bear-off of the last checker needs no reply: 36 times its points
    last = Position.from_points({1: 1}, {24: 1})
    (off,) = bgsim.legal_plays(last, (2, 1))[:1]
    assert look_ahead(net, off.result.board) == 36 * play_value(net, off.result.board) == 36 * UNIT
    assert equity_of(integer_probabilities(net, position.board)) != 0


def test_the_1_ply_parameters_are_checked_in_one_line():
    for spec, words in [("nn(plies=2)", "at most 1"), ("nn(plies=1,keep=0)", "at least 1"),
                        ("nn(plies=1,keep=33)", "at most 32"), ("nn(margin=-1)", "at least 0")]:
        with pytest.raises(SpecError, match=words):
            make_player(spec)
    assert make_player("nn(plies=1)").checker.fast_name == "nn-ahead"
    assert make_player("nn").checker.fast_name == "nn"


def test_1_ply_games_are_the_same_in_both_engines(tmp_path):
    from bgsim.fast.sameness import compare_frames
    from bgsim.series import play_games

    net = _random_net(hidden=16, scale=2.0, contact=True)
    net.save(tmp_path / "random.npz")
    white = make_player(f"nn(weights={tmp_path / 'random.npz'},plies=1,keep=4)+nn")
    black = make_player("pubeval+pipdiff")
    reference = play_games(white, black, seed=4, games=3, engine="reference")
    fast = play_games(white, black, seed=4, games=3, engine="fast")
    assert compare_frames(reference, fast) is None


def test_fast_picks_play_the_reference_games_of_nn_at_either_depth():
    """experiments.studies.strength.fast_picks: the kernels' plays inside reference games are
    the reference bot's, game for game."""
    from bgsim.series import play_games
    from experiments.studies.strength import fast_picks

    for spec in ("nn(plies=1,keep=3)", "nn"):
        reference = play_games(make_player(spec), make_player("pubeval"), seed=9, games=3, engine="reference")
        player = fast_picks(make_player(spec))
        assert "pick" in vars(player.checker)  # the kernels' choice, not the class's
        quick = play_games(player, make_player("pubeval"), seed=9, games=3, engine="reference")
        assert reference.drop(columns=["seconds"], errors="ignore").equals(
            quick.drop(columns=["seconds"], errors="ignore"))
    with pytest.raises(ValueError, match="not the nn"):
        fast_picks(make_player("pubeval"))


@pytest.mark.bot_rule("checker", "nn-v1")
def test_nn_v1_bears_off_its_last_checker_rather_than_leave_it():
    position = Position.from_points({1: 1, 2: 1}, {24: 15})
    plays = bgsim.legal_plays(position, (2, 1))
    assert make_player("nn-v1").checker.choose(position, (2, 1), plays, None).result.checkers_off == 15


def test_nn_v1_plays_the_net_nn_had_before_the_contact_inputs(tmp_path):
    """nn-v1: the old net under a name of its own, the one the results before nn-v2 recorded
    (results/strength_1ply/run.json ran it as nn), playing the same games in both engines."""
    from bgsim.fast.sameness import compare_frames
    from bgsim.series import play_games
    from bots.nn import V1_WEIGHTS

    player = make_player("nn-v1+nn-v1")
    assert player.checker.net.source == str(V1_WEIGHTS) and player.cube.net is player.checker.net
    assert not player.checker.net.reads_contact and player.checker.net.hidden == 256
    assert player.checker.net.digest().startswith("7289375de807")
    assert make_player("nn-v1(plies=1)").checker.fast_name == "nn-ahead"
    shipped = make_player("nn").checker.net
    assert shipped.source == str(DEFAULT_WEIGHTS) and shipped.reads_contact
    assert shipped.digest() != player.checker.net.digest()
    black = make_player("pubeval+pipdiff")
    reference = play_games(player, black, seed=5, games=4, engine="reference")
    fast = play_games(player, black, seed=5, games=4, engine="fast")
    assert compare_frames(reference, fast) is None
