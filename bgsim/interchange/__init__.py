"""Games in and out: XGID, Jellyfish .mat and SGF files, and their replay through the rules."""
