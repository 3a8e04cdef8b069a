"""Summaries, reports, plots and judges: what is read out of the rows of finished games."""
