"""Reads the views make, one module per entity: ``<entity>_get_<what>`` (one row, or the refusal the
caller answers with) and ``<entity>_list_<what>`` (rows, lazily where the page iterates them).

Selectors read; services (``leaderboard.services``) write. Views call both; selectors may call
the services' pure reads (access checks, refusals); services never import selectors.
"""
