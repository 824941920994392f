"""Anonymous leaderboard pages and API JSON from the cache: every change visible on the next request."""

from __future__ import annotations

import gzip
import threading
import time

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.test import Client, RequestFactory, override_settings

from leaderboard.models import PublishedResult, Submission
from leaderboard.services.shared import cache as cache_service
from leaderboard.services.shared.cache import leaderboard_changed
from leaderboard.views.page_cache import HEADER, page_key
from tests.helpers.boards import make_entry

pytestmark = pytest.mark.django_db

PAGE = "/b/dialbgm/test/"
API = "/api/v1/benchmarks/dialbgm/test/leaderboard"
DEAD_CACHE = {"default": {"BACKEND": "leaderboard.config.cache_backend.DegradingRedisCache",
                          "LOCATION": "redis://127.0.0.1:9/0", "KEY_PREFIX": "dead"}}


def _values(hit: float) -> dict[str, float]:
    return {"hit_at_1": hit, "mrr": hit, "ndcg_at_4": hit, "kendall_tau_b": hit}


def _get(url: str, client: Client | None = None) -> tuple[str, str]:
    response = (client or Client()).get(url)
    assert response.status_code == 200
    return response.content.decode(), response.get(HEADER, "")


@pytest.mark.parametrize("url", [PAGE, API])
def test_second_anonymous_request_is_served_from_the_cache(dialbgm_split, alice, url):
    make_entry(dialbgm_split, alice, "Cached model", _values(0.5))
    first, state = _get(url)
    assert state == "miss" and "Cached model" in first
    second, state = _get(url)
    assert state == "hit" and second == first


def test_every_change_to_the_split_is_visible_on_the_next_request(dialbgm_split, alice, maintainer):
    entry = make_entry(dialbgm_split, alice, "First model", _values(0.5))
    _get(PAGE), _get(API)
    make_entry(dialbgm_split, alice, "Second model", _values(0.6))  # a new scored entry (the pipeline's call)
    assert "Second model" in _get(PAGE)[0] and "Second model" in _get(API)[0]

    entry.hidden = True  # a maintainer hides an entry in the admin form
    entry.save()
    assert "First model" not in _get(PAGE)[0] and "First model" not in _get(API)[0]

    dialbgm_split.description = "Now with a new description."
    dialbgm_split.save()
    assert "Now with a new description." in _get(PAGE)[0]

    PublishedResult.objects.create(split=dialbgm_split, paper="A paper", table="T9", model_name="Paper model",
                                   metrics={"hit_at_1": 0.1})
    assert "Paper model" in _get(PAGE)[0] and "Paper model" in _get(API)[0]
    Submission.objects.filter(model_name="Second model").delete()
    assert "Second model" not in _get(PAGE)[0]


@pytest.mark.slow
def test_a_change_made_while_the_cache_was_down_shows_once_the_tokens_entry_expires(dialbgm_split, alice,
                                                                                   monkeypatch):
    # hits read the tokens from the cache, so a delete that could not reach it is covered by the entry's
    # lifetime (services.shared.cache.TOKENS_SECONDS, 5 s; 1 s here), not by a query per request
    monkeypatch.setattr(cache_service, "TOKENS_SECONDS", 1)
    make_entry(dialbgm_split, alice, "Before the outage", _values(0.5))
    assert _get(PAGE)[1] == "miss" and _get(PAGE)[1] == "hit"
    with override_settings(CACHES=DEAD_CACHE):
        make_entry(dialbgm_split, alice, "During the outage", _values(0.6))
        assert "During the outage" in _get(PAGE)[0]  # rendered from the database meanwhile
    time.sleep(1.2)
    assert "During the outage" in _get(PAGE)[0]  # (a hit on this process's page rendered during the outage)


def test_a_hit_runs_no_query(dialbgm_split, alice, django_assert_num_queries):
    make_entry(dialbgm_split, alice, "Some model", _values(0.5))
    assert _get(PAGE)[1] == "miss" and _get(API)[1] == "miss"
    with django_assert_num_queries(0):  # the token too comes from the cache
        page, state = _get(PAGE)
        assert _get(API)[1] == "hit"
    assert state == "hit" and "Some model" in page


def test_a_hit_comes_from_this_process_once_served_and_a_token_move_still_ends_it(dialbgm_split, alice):
    make_entry(dialbgm_split, alice, "Remembered model", _values(0.5))
    first, state = _get(PAGE)
    assert state == "miss"
    key = page_key(RequestFactory().get(PAGE))
    assert key is not None and cache.get(key) is not None
    cache.delete(key)  # the shared copy is gone: this process still has the page for this token
    assert _get(PAGE) == (first, "hit")
    Submission.objects.filter(model_name="Remembered model").update(model_name="Renamed model")
    leaderboard_changed(dialbgm_split.pk)
    page, state = _get(PAGE)
    assert state == "miss" and "Renamed model" in page and "Remembered model" not in page


@pytest.mark.django_db(transaction=True)
def test_a_reader_between_a_change_and_its_commit_cannot_keep_the_old_page(dialbgm_split, alice):
    """The tokens' entry is deleted at once and again on commit: a request that runs meanwhile (another
    connection, so it still sees the old token) may store the old tokens, but not past the commit."""
    make_entry(dialbgm_split, alice, "First model", _values(0.5))
    assert _get(PAGE)[1] == "miss" and _get(PAGE)[1] == "hit"
    seen: list[tuple[str, str]] = []

    def reader() -> None:
        try:
            seen.append(_get(PAGE))
        finally:
            connection.close()

    with transaction.atomic():
        make_entry(dialbgm_split, alice, "Second model", _values(0.6))  # moves the token, not yet committed
        thread = threading.Thread(target=reader)
        thread.start()
        thread.join()
    assert seen[0][1] == "hit" and "Second model" not in seen[0][0]  # the old page, stored again as current
    page, state = _get(PAGE)  # the very next request after the commit
    assert state == "miss" and "Second model" in page


def test_hits_are_gzipped_for_clients_that_accept_it(dialbgm_split, alice):
    make_entry(dialbgm_split, alice, "Packed model", _values(0.5))
    plain, state = _get(PAGE)
    assert state == "miss"
    packed = Client().get(PAGE, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert packed[HEADER] == "hit" and packed["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.content).decode() == plain and len(packed.content) < len(plain) / 2
    assert int(packed["Content-Length"]) == len(packed.content)
    assert "Accept-Encoding" in packed["Vary"] and "Cookie" in packed["Vary"]
    assert "default-src 'self'" in packed["Content-Security-Policy"]  # the security headers stay
    refused = Client().get(PAGE, HTTP_ACCEPT_ENCODING="gzip;q=0, identity")
    assert "Content-Encoding" not in refused and refused.content.decode() == plain
    assert int(refused["Content-Length"]) == len(refused.content)


def test_logged_in_viewers_get_their_own_page(dialbgm_split, alice, bob):
    make_entry(dialbgm_split, bob, "Public model", _values(0.5))
    make_entry(dialbgm_split, alice, "Alice private model", _values(0.6), private=True)
    anonymous, _ = _get(PAGE)
    assert "Alice private model" not in anonymous
    client = Client()
    client.force_login(alice)
    mine, state = _get(PAGE, client)
    assert "Alice private model" in mine and state == ""  # rendered for her, never stored
    assert "Alice private model" not in _get(PAGE)[0]
    token_api = Client(HTTP_AUTHORIZATION="Token whatever").get(API)
    assert HEADER not in token_api


def test_only_known_parameters_are_cached(dialbgm_split, alice):
    make_entry(dialbgm_split, alice, "Some model", _values(0.5))
    assert _get(PAGE + "?entry=latest")[1] == "miss"
    assert _get(PAGE + "?entry=latest")[1] == "hit"
    assert _get(PAGE + "?made-up=1")[1] == ""  # rendered, not stored: made-up keys cannot fill the cache
    assert _get(PAGE + "?made-up=1")[1] == ""
