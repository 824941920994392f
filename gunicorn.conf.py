"""gunicorn's settings file, read from the directory gunicorn starts in (the repository root): its own
error pages get the site's security headers (leaderboard/config/gunicorn_errors.py)."""

from leaderboard.config.gunicorn_errors import install

install()
