"""``bgsim.series.play_games``, the Python entry point of both engines: what it refuses, and how it
says so.
"""

from __future__ import annotations

import pytest

from bgsim.series import play_games
from bots import make_player


def test_play_games_explains_a_spec_string_and_a_fractional_count():
    with pytest.raises(TypeError, match=r"white is the string 'heuristic'.*bots\.make_player\('heuristic'\)"):
        play_games("heuristic", "heuristic", 1, 2)
    with pytest.raises(TypeError, match="black .*not a player"):
        play_games(make_player("random"), object(), 1, 2)
    with pytest.raises(TypeError, match="whole number of games"):
        play_games(make_player("random"), make_player("random"), 1, 2.5)
