import time, sys
from contextlib import nullcontext
import bgsim.fast
from bots import make_player
from bgsim.series import play_games
only_for = getattr(bgsim.fast, "compile_only_for", lambda players: nullcontext())
p = make_player("nn")
with only_for([p]):
    play_games(p, p, 1, 20, engine="fast", threads=1)
best = 0
for r in range(5):
    t = time.perf_counter()
    with only_for([p]):
        play_games(p, p, 1, 2000, engine="fast", threads=1)
    best = max(best, 2000 / (time.perf_counter() - t))
print(sys.argv[1], round(best))
