"""Django settings, all from environment variables (see docs/production.md: the settings table).

Embedded default (nothing set): SQLite and a filesystem Celery broker under
``var/``, so the site and its worker run on a laptop with no servers.
Production: ``DATABASE_URL`` (PostgreSQL via psycopg 3) and ``REDIS_URL``.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from leaderboard.config.env import env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parents[2]
LEADERBOARD_DATA_DIR = Path(env_str("LEADERBOARD_DATA_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)


def _local_secret_key(path: Path) -> str:
    """The embedded default's own key, made once and kept under ``var/``: every process of the site (the server,
    its workers, ``manage.py`` commands run by hand) signs with the same key without anyone setting one."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}")
        draft.touch(mode=0o600)
        draft.write_text(secrets.token_urlsafe(48))
        try:
            os.link(draft, path)  # atomic: of processes starting at once, the first key written wins
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text().strip()


SECRET_KEY = env_str("SECRET_KEY", "") or None
if SECRET_KEY is None:
    if not env_str("DATABASE_URL", ""):
        SECRET_KEY = _local_secret_key(LEADERBOARD_DATA_DIR / "secret_key")
    elif DEBUG:
        SECRET_KEY = "debug-only-not-secret"
    else:
        raise ImproperlyConfigured("SECRET_KEY must be set (or DEBUG=1 for local development)")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# where the site is reached, for links in mail sent outside a request (a worker's "submission ended")
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000" if DEBUG or not env_str("DATABASE_URL", "") else "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "leaderboard.apps.LeaderboardConfig",
]

MIDDLEWARE = [
    "leaderboard.views.compression.GzipWithoutTokens",  # outermost: compresses the body the others made
    "leaderboard.views.error_responses.ErrorResponsesMiddleware",  # refusals; every /api/ error JSON
    "django.middleware.security.SecurityMiddleware",
    "leaderboard.views.security.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

if env_bool("PAGE_CACHE", True):  # anonymous leaderboard pages; before sessions, so a hit skips the rest
    MIDDLEWARE.insert(MIDDLEWARE.index("whitenoise.middleware.WhiteNoiseMiddleware") + 1,
                      "leaderboard.views.page_cache.AnonymousPageCache")

ROOT_URLCONF = "leaderboard.config.urls"
WSGI_APPLICATION = "leaderboard.config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{LEADERBOARD_DATA_DIR / 'db.sqlite3'}"), conn_max_age=60,
        conn_health_checks=True,  # a connection the database dropped is replaced, not a 500
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # web and worker are two processes: WAL lets them read while the other writes
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    # refuses a password equal (or close) to the username or email
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
ACCOUNTS = {
    "SIGNUPS_PER_EMAIL_PER_DAY": env_int("SIGNUPS_PER_EMAIL_PER_DAY", 3, minimum=1),
    "SIGNUPS_PER_IP_PER_DAY": env_int("SIGNUPS_PER_IP_PER_DAY", 5, minimum=1),
    "SIGNUPS_PER_NETWORK_PER_DAY": env_int("SIGNUPS_PER_NETWORK_PER_DAY", 10, minimum=1),  # a /24 or a /64
    "RESETS_PER_EMAIL_PER_DAY": env_int("RESETS_PER_EMAIL_PER_DAY", 3, minimum=1),
    "RESETS_PER_IP_PER_DAY": env_int("RESETS_PER_IP_PER_DAY", 10, minimum=1),
    "RESETS_PER_NETWORK_PER_DAY": env_int("RESETS_PER_NETWORK_PER_DAY", 20, minimum=1),
    "LOGIN_FAILURES_PER_USERNAME": env_int("LOGIN_FAILURES_PER_USERNAME", 5, minimum=1),
    "LOGIN_FAILURES_PER_IP": env_int("LOGIN_FAILURES_PER_IP", 30, minimum=1),
    "LOGIN_FAILURES_PER_NETWORK": env_int("LOGIN_FAILURES_PER_NETWORK", 60, minimum=1),  # a /24 or a /64
    "LOGIN_WINDOW_SECONDS": env_int("LOGIN_WINDOW_SECONDS", 900, minimum=60),
}
# console by default (the message is printed by the web process); SMTP in production: docs/production.md
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "leaderboard@localhost")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(LEADERBOARD_DATA_DIR / "static")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise expects it; collectstatic fills it
MEDIA_ROOT = LEADERBOARD_DATA_DIR / "media"

REDIS_URL = env_str("REDIS_URL", "")
CACHES = {
    "default": (
        {"BACKEND": "leaderboard.config.cache_backend.DegradingRedisCache", "LOCATION": REDIS_URL,
         "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "leaderboard"),
         "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 1.0}}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
              "LOCATION": str(LEADERBOARD_DATA_DIR / "cache")}
    )
}

# --- Celery ------------------------------------------------------------------------
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any]
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600)}
else:
    _broker = LEADERBOARD_DATA_DIR / "broker"
    for _folder in ("queue", "processed", "control"):
        (_broker / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker / "queue"),
        "data_folder_out": str(_broker / "queue"),
        "processed_folder": str(_broker / "processed"),
        "store_processed": False,
        "control_folder": str(_broker / "control"),  # else kombu writes ./control in the working directory
    }
    # no remote control (pidbox): every worker binds the same fanout table at start, which the filesystem transport
    # creates without holding its lock, so a worker could read it empty and stop; nothing here uses remote control
    CELERY_WORKER_ENABLE_REMOTE_CONTROL = False
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "leaderboard")
# the sweeper has a queue (and, in production, a worker) of its own: long chunks never delay it
CELERY_SWEEP_QUEUE = env_str("CELERY_SWEEP_QUEUE", CELERY_TASK_DEFAULT_QUEUE + "-sweep")
CELERY_TASK_ROUTES = {"leaderboard.tasks.sweep_submissions": {"queue": CELERY_SWEEP_QUEUE}}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BEAT_SCHEDULE = {
    "sweep-stuck-submissions": {
        "task": "leaderboard.tasks.sweep_submissions",
        "schedule": env_float("SWEEP_EVERY_SECONDS", 15.0),
        "options": {"expires": env_float("SWEEP_EVERY_SECONDS", 15.0)},  # sweeps missed while down don't pile up
    }
}

# --- The leaderboard ----------------------------------------------------------------
LEADERBOARD = {
    "DAILY_QUOTA": env_int("DAILY_QUOTA", 5, minimum=0),
    "MAX_UPLOAD_BYTES": env_int("MAX_UPLOAD_BYTES", 100 * 1024 * 1024, minimum=1),
    "MAX_RUNS": env_int("MAX_RUNS", 5, minimum=1),
    # a lease the working task renews every HEARTBEAT_SECONDS: a worker that died is noticed within it
    "STALE_AFTER_SECONDS": env_int("STALE_AFTER_SECONDS", 30, minimum=1),
    "HEARTBEAT_SECONDS": env_float("HEARTBEAT_SECONDS", 5.0),
    # a queued submission nobody claimed for this long is re-queued (its message may have been lost)
    "REQUEUE_AFTER_SECONDS": env_int("REQUEUE_AFTER_SECONDS", 60, minimum=1),
    "MAX_ATTEMPTS": env_int("MAX_ATTEMPTS", 3, minimum=1),
    "GIVE_UP_AFTER_SECONDS": env_int("GIVE_UP_AFTER_SECONDS", 24 * 3600, minimum=60),
    "SCORING_CHUNK_SIZE": env_int("SCORING_CHUNK_SIZE", 2000, minimum=1),
    "BERTSCORE": env_bool("BERTSCORE", True),
    # reference embeddings kept between submissions, on each worker host's own disk (SQLite in WAL mode: never a
    # shared folder such as a mounted LEADERBOARD_DATA_DIR); never served (hidden references are in it); empty: off
    "BERTSCORE_STORE": env_str("BERTSCORE_STORE", str(Path(env_str("XDG_CACHE_HOME", str(Path.home() / ".cache")))
                                                      / "music-leaderboard" / "bertscore-embeddings.sqlite3")),
    "BERTSCORE_STORE_MB": env_int("BERTSCORE_STORE_MB", 8192, minimum=1),
    # encode a split's references into the store when they are imported, not on its first submission
    "BERTSCORE_WARM": env_bool("BERTSCORE_WARM", True),
    # a queue for model-heavy families (BERTScore), consumed by a GPU worker; unset: the default queue scores all
    "SCORING_HEAVY_QUEUE": env_str("SCORING_HEAVY_QUEUE", ""),
    "BOOTSTRAP_REPLICATES": env_int("BOOTSTRAP_REPLICATES", 1000, minimum=0),
    "JUDGES_FILE": env_str("JUDGES_FILE", ""),
    # keys the label digest in hidden-label splits' signatures (empty: SECRET_KEY); changing it changes them
    "SIGNATURE_SECRET": env_str("SIGNATURE_SECRET", ""),
    "KEEP_PROBLEMS": 200,
}
LIMITS = {
    "DRY_RUN_MAX_BYTES": env_int("DRY_RUN_MAX_BYTES", 10 * 1000 * 1000, minimum=1),
    "DRY_RUNS_PER_HOUR": env_int("DRY_RUNS_PER_HOUR", 30, minimum=1),
    "REJECTED_PER_DAY": env_int("REJECTED_PER_DAY", 10, minimum=1),
    # comparisons per hour per account (anonymous: per IP); maintainers are not limited
    "COMPARES_PER_HOUR": env_int("COMPARES_PER_HOUR", 300, minimum=1),
    "REJECTED_RETENTION_DAYS": env_float("REJECTED_RETENTION_DAYS", 7.0),
}
CELERY_BEAT_SCHEDULE["purge-rejected-files"] = {"task": "leaderboard.tasks.purge_rejected_files", "schedule": 86400.0}
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_TEMP_DIR = None

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
# --- HTTPS in production (docs/production.md) ------------------------------
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000, minimum=0)  # sent over HTTPS only
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
if env_bool("BEHIND_TLS_PROXY", False):  # the proxy terminates TLS and says so in this header
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
X_FRAME_OPTIONS = "DENY"
