"""Site tests: PostgreSQL and Redis; tasks run eagerly in-process."""

from tests.helpers.fixtures import *  # noqa: F403
