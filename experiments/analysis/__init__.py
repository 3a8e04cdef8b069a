"""From rows to answers: summaries, reports, plots and judges."""
