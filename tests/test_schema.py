"""The row schema (``bgsim/schema.py``): a game without a double has nulls where a double's figures
would be, and the outcomes are categoricals that survive a parquet round trip.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bgsim.cube import Rules
from bgsim.series import play_games
from bots import make_player


def test_no_double_is_a_null_and_outcomes_are_categoricals(tmp_path):
    frame = play_games(make_player("heuristic+keith"), make_player("random"), 4, 40, engine="reference")
    doubled = frame["doubles"] > 0
    assert doubled.any() and (~doubled).any()
    assert frame.loc[~doubled, "first_double_ply"].isna().all()
    assert frame.loc[~doubled, "first_doubler"].isna().all()
    assert frame.loc[doubled, "first_double_ply"].notna().all()
    # The mean means what it says: over the games that had a double.
    plies = frame.loc[doubled, "first_double_ply"].astype(float)
    assert frame["first_double_ply"].mean() == pytest.approx(plies.mean())
    for name, categories in (("winner", ["white", "black"]), ("result", ["single", "gammon", "backgammon", "drop"]),
                             ("cube_owner", ["centre", "white", "black"]), ("first_doubler", ["white", "black"])):
        assert isinstance(frame[name].dtype, pd.CategoricalDtype)
        assert list(frame[name].cat.categories) == categories
    frame.to_parquet(tmp_path / "r.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "r.parquet"), frame)
    cubeless = play_games(make_player("random"), make_player("random"), 4, 5, Rules(cube=False), engine="reference")
    assert cubeless["first_double_ply"].isna().all() and math.isnan(cubeless["first_double_ply"].astype(float).mean())
