"""The floor under the four rooms: what several of them need. Stored files, the one door to Celery, the site's
scorer and judges, a split's parsed references, the cache keyed by split tokens, and the layout of an entry's
per-run arrays. Nothing here imports a room (``policy``, ``pipeline``, ``references``, ``boards``).
"""
