"""Questions answered by runs of their own: the cube audit, the cross-check, match equity, the nn net."""
