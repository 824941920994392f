"""Downloads: the leaderboard's CSV and JSON carry each entry's model facts; per-item CSV/JSONL carry
``qa_type`` only where items have one and name a per-item score whose mean is not the entry's value;
pages, API docs and downloads are gzipped for clients that ask, and pages holding a CSRF token never are."""

from __future__ import annotations

import csv
import gzip
import io
import json
from typing import Any

import pytest
import sacrebleu
from django.test import Client

import leaderboard.tasks  # noqa: F401  (registers the tasks an upload enqueues by name)
from leaderboard.models import ReferenceItem, Submission
from leaderboard.services.shared.cache import leaderboard_changed
from tests.helpers.boards import make_entry
from tests.helpers.datagen import dialbgm_predictions, jamendo_predictions
from tests.helpers.site import upload

pytestmark = pytest.mark.django_db

DIAL_VALUES = {"hit_at_1": (0.5, 0.4, 0.6, 0.05), "mrr": 0.625, "ndcg_at_4": 0.75, "kendall_tau_b": 0.125}
MODEL_FACTS = ["parameters", "open_weights", "paper_url", "code_url", "demo"]


def _table(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode())))


def body(response: Any) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def _with_facts(split: Any, user: Any, name: str, **facts: Any) -> Submission:
    entry = make_entry(split, user, name, DIAL_VALUES)
    Submission.objects.filter(pk=entry.pk).update(**facts)
    leaderboard_changed(split.pk)
    return entry


def _expected_header(split: Any, labels: list[str], keys: list[str]) -> list[str]:
    return ["rank", "statistically_tied", "model_name", "organisation",
            *[f"setting_{s.key}" for s in split.spec.settings], "verified", "entry_id", "entry_url",
            "submitted_at", "runs", "complete",
            *[name for label, key in zip(labels, keys, strict=True)
              for name in (f"{label} ({key})", f"{label} std", f"{label} ci_low", f"{label} ci_high")],
            *[f"{label} signature" for label in labels], *MODEL_FACTS, "provenance", "source", "lane", "not_ranked"]


# --- leaderboard CSV and JSON ----------------------------------------------------------------------


def test_leaderboard_csv_appends_model_facts_after_every_existing_column(dialbgm_split, alice, bob):
    _with_facts(dialbgm_split, alice, "Open 7B", parameters="7B", open_weights=True,
                paper_url="https://arxiv.org/abs/2401.00001", code_url="https://github.com/lab/open7b")
    _with_facts(dialbgm_split, bob, "Closed", parameters="+1.3B", open_weights=False, demo=True)
    _with_facts(dialbgm_split, bob, "Unsaid")
    table = _table(Client().get("/b/dialbgm/test/leaderboard.csv").content)
    api = Client().get("/api/v1/benchmarks/dialbgm/test/leaderboard").json()
    labels, keys = [c["label"] for c in api["columns"]], [c["key"] for c in api["columns"]]
    assert keys == ["hit_at_1", "mrr", "ndcg_at_4", "kendall_tau_b"]
    assert table[0] == _expected_header(dialbgm_split, labels, keys)
    facts = {row[2]: row[-9:] for row in table[1:]}
    site = ["site", "", ""]
    assert facts == {
        "Open 7B": ["7B", "True", "https://arxiv.org/abs/2401.00001", "https://github.com/lab/open7b", "False",
                    "submitted", *site],
        "Closed": ["'+1.3B", "False", "", "", "True", "submitted", *site],  # a cell starting like a formula is not one
        "Unsaid": ["", "", "", "", "False", "submitted", *site],
    }
    first = dict(zip(table[0], table[1], strict=True))
    hit = [first[f"Hit@1{suffix}"] for suffix in (" (hit_at_1)", " std", " ci_low", " ci_high")]
    assert hit == ["0.5", "0.05", "0.4", "0.6"]  # the existing columns keep their values


def test_leaderboard_json_download_carries_the_same_model_facts(dialbgm_split, alice):
    _with_facts(dialbgm_split, alice, "Open 7B", parameters="7B", open_weights=True,
                paper_url="https://arxiv.org/abs/2401.00001", code_url="https://github.com/lab/open7b")
    entry = Client().get("/b/dialbgm/test/leaderboard.json").json()["rows"][0]["entry"]
    assert {k: entry[k] for k in MODEL_FACTS} == {
        "parameters": "7B", "open_weights": True, "paper_url": "https://arxiv.org/abs/2401.00001",
        "code_url": "https://github.com/lab/open7b", "demo": False}


def test_hidden_label_csv_releases_the_disclosed_values_and_no_more(make_split, dialbgm_refs, alice, maintainer):
    hidden = make_split("dialbgm", "hidden-test", dialbgm_refs, hidden=True)
    _with_facts(hidden, alice, "Open 7B", parameters="7B", open_weights=True)
    table = _table(Client().get("/b/dialbgm/hidden-test/leaderboard.csv").content)
    api = Client().get("/api/v1/benchmarks/dialbgm/hidden-test/leaderboard").json()
    released = api["rows"][0]["entry"]["metrics"]
    labels = [c["label"] for c in api["columns"]]
    assert table[0] == _expected_header(hidden, labels, [c["key"] for c in api["columns"]])
    row = dict(zip(table[0], table[1], strict=True))
    for column in api["columns"]:
        cell = released[column["id"]]
        assert row[f"{column['label']} ({column['key']})"] == str(cell["value"])
        assert cell["value"] != DIAL_VALUES.get(column["key"])  # rounded, not the stored value
        assert row[f"{column['label']} std"] == row[f"{column['label']} ci_low"] == ""
        assert row[f"{column['label']} ci_high"] == ""
    assert [row[k] for k in MODEL_FACTS] == ["7B", "True", "", "", "False"]
    after = table[1][table[0].index("complete") + 1:]
    numbers = {c for c in after if c.replace(".", "", 1).replace("-", "", 1).isdigit()}
    assert numbers == {str(released[c["id"]]["value"]) for c in api["columns"]}


# --- per-item downloads ----------------------------------------------------------------------------


@pytest.fixture
def scored_jamendo(alice, jamendo_split, jamendo_refs, django_capture_on_commit_callbacks):
    predictions = jamendo_predictions(jamendo_refs, seed=5, noise=0.5)
    with django_capture_on_commit_callbacks(execute=True):
        upload(alice, jamendo_split, [predictions], model_name="Noisy QA")
    submission = Submission.objects.get(model_name="Noisy QA")
    assert submission.status == "scored", submission.status
    return submission, jamendo_refs, predictions


@pytest.mark.slow  # loads the BERTScore model
def test_jamendo_items_carry_qa_type_and_name_sentence_bleu(scored_jamendo, maintainer):
    submission, refs, predictions = scored_jamendo
    client = Client()
    client.force_login(maintainer)
    table = list(csv.DictReader(io.StringIO(body(client.get(f"/s/{submission.uid}/items.csv")).decode())))
    header = list(table[0])
    assert header[:6] == ["run", "index", "id", "qa_type", "prediction", "reference"]
    assert "bleu_sentence" in header and "bleu" not in header and "rouge1" in header
    assert [r["qa_type"] for r in table] == [r["qa_type"] for r in refs]
    said = {p["id"]: p["prediction"] for p in predictions}
    sentences = [(r["id"], r["answer"]) for r in refs if r["qa_type"] == "sentence"]
    by_id = {r["id"]: r for r in table}
    for item_id, answer in sentences:  # sacrebleu's own sentence BLEU, with the spec's settings
        expected = sacrebleu.sentence_bleu(said[item_id], [answer], tokenize="13a", smooth_method="exp").score
        assert float(by_id[item_id]["bleu_sentence"]) == pytest.approx(expected, abs=1e-9)
    corpus = sacrebleu.corpus_bleu([said[i] for i, _ in sentences], [[a for _, a in sentences]],
                                   tokenize="13a", smooth_method="exp").score
    mean = sum(float(by_id[i]["bleu_sentence"]) for i, _ in sentences) / len(sentences)
    assert submission.report["metrics"]["bleu"] == pytest.approx(corpus, abs=1e-9)
    assert abs(mean - corpus) > 0.01  # why the per-item column is not called bleu
    lines = [json.loads(line) for line in body(client.get(f"/s/{submission.uid}/items.jsonl")).decode().splitlines()]
    assert [line["qa_type"] for line in lines] == [r["qa_type"] for r in refs]
    sentence = next(line for line in lines if line["qa_type"] == "sentence")
    assert "bleu_sentence" in sentence["scores"] and "bleu" not in sentence["scores"]


def test_items_of_a_benchmark_without_qa_types_have_no_qa_type(alice, dialbgm_split, dialbgm_refs,
                                                               django_capture_on_commit_callbacks):
    assert not ReferenceItem.objects.filter(split=dialbgm_split).exclude(qa_type="").exists()
    with django_capture_on_commit_callbacks(execute=True):
        upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="Ranker")
    uid = Submission.objects.get(model_name="Ranker").uid
    client = Client()
    client.force_login(alice)
    table = _table(body(client.get(f"/s/{uid}/items.csv")))
    keys = ["hit_at_1", "mrr", "ndcg_at_4", "kendall_tau_b"]
    assert table[0] == ["run", "index", "id", "prediction", "reference", *keys]
    report = Submission.objects.get(uid=uid).report["metrics"]
    for position, key in enumerate(keys, start=5):  # named as the entry's columns: the items average to them
        values = [float(row[position]) for row in table[1:]]
        assert sum(values) / len(values) == pytest.approx(report[key], abs=1e-9), key
    first = json.loads(body(client.get(f"/s/{uid}/items.jsonl")).decode().splitlines()[0])
    assert "qa_type" not in first and set(first["scores"]) == {"hit_at_1", "mrr", "ndcg_at_4", "kendall_tau_b"}


# --- gzip ------------------------------------------------------------------------------------------

ASKS = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def _vary(response: Any) -> set[str]:
    return {v.strip() for v in response.get("Vary", "").split(",")}


def test_entry_pages_api_docs_and_downloads_are_gzipped_when_asked(alice, dialbgm_split, dialbgm_refs,
                                                                   django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="Ranker")
    uid = Submission.objects.get(model_name="Ranker").uid
    owner = Client()
    owner.force_login(alice)
    downloads = [(Client(), "/b/dialbgm/test/leaderboard.json"), (Client(), "/b/dialbgm/test/leaderboard.csv"),
                 (Client(), "/api/v1/openapi.json"), (Client(), "/api/v1/benchmarks/dialbgm/test/leaderboard"),
                 (owner, f"/s/{uid}/items.csv"), (owner, f"/s/{uid}/items.jsonl")]
    for client, route in downloads:
        plain, packed = client.get(route), client.get(route, **ASKS)
        assert plain.status_code == packed.status_code == 200, route
        assert "Content-Encoding" not in plain and "Accept-Encoding" in _vary(plain), route
        assert packed["Content-Encoding"] == "gzip" and "Accept-Encoding" in _vary(packed), route
        assert gzip.decompress(body(packed)) == body(plain), route
    for route, text in ((f"/s/{uid}/", "Ranker"), ("/docs/api/", "/api/v1/benchmarks")):
        packed = Client().get(route, **ASKS)
        assert packed["Content-Encoding"] == "gzip" and "Accept-Encoding" in _vary(packed), route
        assert text in gzip.decompress(packed.content).decode(), route
        refused = Client().get(route, HTTP_ACCEPT_ENCODING="gzip;q=0, identity")
        assert "Content-Encoding" not in refused and text in refused.content.decode(), route


def test_responses_carrying_a_csrf_token_are_never_gzipped(alice, dialbgm_split):
    entry = make_entry(dialbgm_split, alice, "Mine", DIAL_VALUES)
    owner = Client()
    owner.force_login(alice)
    for client, route in ((Client(), "/accounts/login/"), (owner, f"/s/{entry.uid}/"), (owner, "/accounts/tokens/")):
        response = client.get(route, **ASKS)
        assert response.status_code == 200, route
        assert "csrfmiddlewaretoken" in response.content.decode(), route
        assert "Content-Encoding" not in response and "Accept-Encoding" in _vary(response), route
