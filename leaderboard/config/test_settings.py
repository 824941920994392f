"""Settings for the test suite: production parts by default (PostgreSQL, Redis), isolated names.

Override with DATABASE_URL / REDIS_URL. Tests that need a worker start a real one on a
queue of their own; the rest run tasks eagerly (the same task code, in-process).
"""

import os
import tempfile
import uuid

_session = uuid.uuid4().hex[:8]
os.environ.setdefault("SECRET_KEY", "tests-only-" + _session)
os.environ.setdefault("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/leaderboard")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("CACHE_KEY_PREFIX", f"test-{_session}")
os.environ.setdefault("CELERY_QUEUE", f"test-{_session}")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")
os.environ.setdefault("LEADERBOARD_DATA_DIR", tempfile.mkdtemp(prefix=f"leaderboard-tests-{_session}-"))
os.environ.setdefault("BERTSCORE_STORE", os.path.join(os.environ["LEADERBOARD_DATA_DIR"], "bertscore.sqlite3"))
os.environ.setdefault("BERTSCORE_WARM", "0")  # eager tasks would load the model on every reference import
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")
os.environ.setdefault("SECURE_COOKIES", "0")
os.environ.setdefault("BOOTSTRAP_REPLICATES", "200")

from leaderboard.config.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast user creation in tests
DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405  (live-server threads must not keep sessions open)
# one test database per run: two runs at once (a developer and CI) must not collide
DATABASES["default"]["TEST"] = {"NAME": f"test_leaderboard_{_session}"}  # noqa: F405
