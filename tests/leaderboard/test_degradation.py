"""With Redis or a database connection lost, pages degrade instead of failing; /healthz says which part is down."""

from __future__ import annotations

import io

import psycopg
import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection
from django.test import Client, RequestFactory, override_settings

from tests.helpers.boards import make_entry

pytestmark = pytest.mark.django_db

DEAD_REDIS = "redis://127.0.0.1:9/0"  # port 9 (discard): nothing listens on loopback
DEAD_CACHE = {"default": {"BACKEND": "leaderboard.config.cache_backend.DegradingRedisCache",
                          "LOCATION": DEAD_REDIS, "KEY_PREFIX": "dead"}}


def _values(hit: float) -> dict[str, float]:
    return {"hit_at_1": hit, "mrr": hit, "ndcg_at_4": hit, "kendall_tau_b": hit}


def test_healthz_reports_every_dependency():
    response = Client().get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and set(body["checks"]) == {"database", "broker", "cache"}
    assert all(check["ok"] for check in body["checks"].values())
    assert "no-store" in response["Cache-Control"] or "no-cache" in response["Cache-Control"]


def test_healthz_is_503_with_the_cache_down_and_names_it():
    with override_settings(CACHES=DEAD_CACHE):
        response = Client().get("/healthz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["cache"]["ok"] is False and "ConnectionError" in checks["cache"]["error"]
    assert checks["database"]["ok"] is True and checks["broker"]["ok"] is True
    assert "127.0.0.1:9" not in response.content.decode()  # no connection details


def test_healthz_checks_the_broker_celery_uses_not_the_cache_redis(monkeypatch):
    monkeypatch.setenv("CELERY_BROKER_URL", DEAD_REDIS)  # Celery reads it before its settings; the cache stays up
    response = Client().get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["ok"] is False and body["checks"]["broker"]["ok"] is False
    assert body["checks"]["broker"]["error"] == "OperationalError"
    assert body["checks"]["cache"]["ok"] is True and body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"]["ms"] < 1500  # refused at once, never Celery's retry loop
    assert "127.0.0.1:9" not in response.content.decode()
    monkeypatch.delenv("CELERY_BROKER_URL")
    assert Client().get("/healthz").status_code == 200  # the real broker


def test_healthz_is_503_with_the_broker_in_the_settings_down():
    with override_settings(CELERY_BROKER_URL=DEAD_REDIS):
        response = Client().get("/healthz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["broker"]["ok"] is False and checks["cache"]["ok"] is True


def test_healthz_checks_the_folders_of_the_embedded_filesystem_broker(monkeypatch, tmp_path):
    folders = {"data_folder_in": str(tmp_path / "queue"), "data_folder_out": str(tmp_path / "queue"),
               "processed_folder": str(tmp_path / "processed"), "control_folder": str(tmp_path / "control")}
    monkeypatch.setenv("CELERY_BROKER_URL", "filesystem://")
    with override_settings(CELERY_BROKER_TRANSPORT_OPTIONS=folders):
        missing = Client().get("/healthz")
        (tmp_path / "queue").mkdir()
        present = Client().get("/healthz")
    broker = missing.json()["checks"]["broker"]
    assert missing.status_code == 503 and broker["ok"] is False and broker["error"] == "OSError"
    assert present.status_code == 200 and present.json()["checks"]["broker"]["ok"] is True


def test_leaderboard_page_and_api_render_from_the_database_with_redis_down(dialbgm_split, alice):
    make_entry(dialbgm_split, alice, "Shown without Redis", _values(0.5))
    with override_settings(CACHES=DEAD_CACHE):
        for url in ("/b/dialbgm/test/", "/api/v1/benchmarks/dialbgm/test/leaderboard",
                    "/api/v1/benchmarks/dialbgm/test/heatmap", "/b/dialbgm/test/leaderboard.csv"):
            response = Client().get(url)
            assert response.status_code == 200, url
            assert b"Shown without Redis" in response.content or url.endswith("heatmap"), url
        assert Client().get("/healthz").status_code == 503


def _wsgi_get(path: str) -> int:
    """A request through the WSGI handler, as gunicorn sends it (request start/finish signals included)."""
    environ = RequestFactory()._base_environ(PATH_INFO=path, REQUEST_METHOD="GET", QUERY_STRING="")
    environ["wsgi.input"] = io.BytesIO(b"")
    statuses: list[str] = []
    body = WSGIHandler()(environ, lambda status, headers, *_: statuses.append(status))
    b"".join(body)
    return int(statuses[0].split()[0])


@pytest.mark.django_db(transaction=True)
def test_a_database_connection_dropped_between_requests_is_replaced(dialbgm_split, alice, settings):
    make_entry(dialbgm_split, alice, "Survives", _values(0.5))
    connection.close()
    persistent = connection.settings_dict["CONN_MAX_AGE"]
    connection.settings_dict["CONN_MAX_AGE"] = 60  # as in production: the connection outlives the request
    try:
        assert _wsgi_get("/api/v1/benchmarks/dialbgm/test/leaderboard") == 200
        pid = connection.connection.info.backend_pid
        with psycopg.connect(**_admin_params(), autocommit=True) as admin:  # the database drops it
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])
        # the leaderboard would now be a page-cache hit, which runs no query: the heatmap always reads the database
        assert _wsgi_get("/api/v1/benchmarks/dialbgm/test/heatmap") == 200
        assert connection.connection.info.backend_pid != pid
    finally:
        connection.settings_dict["CONN_MAX_AGE"] = persistent
        connection.close()


def _admin_params() -> dict[str, object]:
    s = connection.settings_dict
    return {"dbname": s["NAME"], "user": s["USER"], "password": s["PASSWORD"] or None,
            "host": s["HOST"] or "127.0.0.1", "port": s["PORT"] or 5432}
