"""Summaries, reports, judges and the GNU Backgammon program adapter: what is made of rows."""
