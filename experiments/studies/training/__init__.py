"""Training of the ``nn`` checker bot (``bgsim train``): self-play positions, GNU Backgammon's
evaluations as labels, a float network trained in numpy, then quantized for both engines."""
