"""Who sees what, on every route: private, maintainer-hidden and hidden-label entries.

The world: a public DialBGM split with Alice's public and private entries and Bob's entry
that a maintainer hid; a hidden-label DialBGM split and a hidden-label Jamendo-MT-QA split
whose gold answers are distinctive strings, each with a public entry of Alice's (and judge
notes planted on the per-item rows). Then every route is asked, by every kind of viewer.
"""

from __future__ import annotations

import html
import json
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings

from leaderboard.models import ItemScore, Split, Status, Submission
from leaderboard.services.shared.cache import leaderboard_changed
from tests.helpers.datagen import dialbgm_predictions, dialbgm_references, marked_jamendo_references
from tests.helpers.fixtures import module_rows, rows_fresh, split_create, user_create
from tests.helpers.site import client_for, on_commit_run, upload

pytestmark = pytest.mark.django_db

JUDGE_SENTINEL = "JUDGE-RATIONALE-Q7V"


# --- distinctive references ------------------------------------------------------------


def secret_dialbgm_references(n: int) -> list[dict[str, Any]]:
    """Candidates with unusual ids; every gold ranking differs from the public candidate order."""
    rng = random.Random(11)
    items = []
    for i in range(n):
        candidates = [f"zqcand-{i}-{j}" for j in range(4)]
        gold = candidates[:]
        while gold == candidates:
            rng.shuffle(gold)
        items.append({"id": f"secret-dlg-{i}", "summary": f"Dialogue {i}.", "candidates": candidates,
                      "gold_ranking": gold})
    return items


def secret_jamendo_references(pairs: int) -> list[dict[str, Any]]:
    """Every answer carries a token (GOLDANS-...) that appears nowhere else: not in inputs, not in predictions."""
    tags = {"yes_no": "yn", "short_answer": "sa", "sentence": "se"}
    return marked_jamendo_references(pairs, lambda qa_type, p: f"GOLDANS-{tags[qa_type]}{p}")


def secret_jamendo_predictions(references: list[dict[str, Any]]) -> list[dict[str, Any]]:
    generic = {"yes_no": "Yes", "short_answer": "the second one", "sentence": "a calm piece with piano and bass"}
    return [{"id": r["id"], "prediction": generic[r["qa_type"]]} for r in references]


def gold_needles(references: list[dict[str, Any]]) -> list[str]:
    """Every way a gold answer or gold ranking could be written into a response."""
    needles: set[str] = set()
    for ref in references:
        if "gold_ranking" in ref:
            gold = ref["gold_ranking"]
            forms = [json.dumps(gold), json.dumps(gold, separators=(",", ":")), str(gold), ", ".join(gold),
                     " > ".join(gold), ",".join(gold)]
        else:
            answer = ref["answer"]
            forms = [answer, answer.split()[0] if answer.startswith("GOLDANS") else answer.split()[1]]
        for form in forms:
            needles.update({form, html.escape(form), json.dumps(form)[1:-1], form.replace('"', '""')})
    return sorted(needles)


# --- the world --------------------------------------------------------------------------


@dataclass
class World:
    public_split: Split
    dialbgm_hidden: Split
    jamendo_hidden: Split
    alice_public: Submission
    alice_private: Submission
    bob_hidden: Submission
    hidden_dialbgm_entry: Submission
    hidden_jamendo_entry: Submission
    invalid_hidden_entry: Submission
    needles: list[str] = field(default_factory=list)


def _scored(response: Any) -> Submission:
    assert response.status_code == 201, response.content
    submission = Submission.objects.get(uid=response.json()["id"])
    return submission


@pytest.fixture(scope="class")
def world_rows(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """The world, built once for the tests of a class (with a daily quota that lets Alice upload it all)."""
    quota = override_settings(LEADERBOARD={**settings.LEADERBOARD, "DAILY_QUOTA": 50})
    with module_rows(django_db_blocker), quota:
        users = {"alice": user_create("alice"), "bob": user_create("bob"),
                 "maintainer": user_create("maintainer", staff=True)}
        folder = tmp_path_factory.mktemp("world")
        dialbgm_split = split_create("dialbgm", "test", dialbgm_references(60, seed=3), folder)
        world = _world(dialbgm_split, dialbgm_references(60, seed=3),
                       *(split_create(b, s, refs, folder, hidden=True) for b, s, refs in (
                           ("dialbgm", "hidden-test", secret_dialbgm_references(60)),
                           ("jamendo-mt-qa", "hidden-qa", secret_jamendo_references(6)))),
                       **users)
        yield {**users, **{f.name: getattr(world, f.name) for f in fields(World)}}


@pytest.fixture
def world(world_rows, db) -> World:
    fresh = rows_fresh(world_rows)
    return World(**{f.name: fresh[f.name] for f in fields(World)})


def _world(dialbgm_split: Split, dialbgm_refs: list[dict[str, Any]], dialbgm_hidden: Split, jamendo_hidden: Split,
           alice: Any, bob: Any, maintainer: Any) -> World:
    dial_secret = secret_dialbgm_references(60)
    jam_secret = secret_jamendo_references(6)
    with on_commit_run():
        alice_public = _scored(upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs, seed=1)],
                                      model_name="Alice Open Ranker", input="full_dialogue"))
        alice_private = _scored(upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs, seed=2)],
                                       model_name="Alice Secret Ranker", private="1"))
        bob_hidden = _scored(upload(bob, dialbgm_split, [dialbgm_predictions(dialbgm_refs, seed=3)],
                                    model_name="Bob Moderated Ranker"))
        hidden_dialbgm_entry = _scored(upload(alice, dialbgm_hidden, [dialbgm_predictions(dial_secret, skill=0.0)],
                                              model_name="Alice Blind Ranker"))
        hidden_jamendo_entry = _scored(upload(alice, jamendo_hidden, [secret_jamendo_predictions(jam_secret)],
                                              model_name="Alice Blind QA", type="Multi"))
        wrong = dialbgm_predictions(dial_secret, skill=0.0)
        wrong[0] = {"id": wrong[0]["id"], "ranking": dial_secret[0]["candidates"][:3]}  # not a permutation
        wrong[1] = {"id": "secret-dlg-unknown", "scores": {"x": 1}}
        invalid_hidden_entry = _scored(upload(alice, dialbgm_hidden, [wrong], model_name="Alice Broken Ranker"))
    Submission.objects.filter(pk=bob_hidden.pk).update(hidden=True)  # what the admin "hide" action does
    leaderboard_changed(dialbgm_split.pk)
    for sub in (alice_public, alice_private, bob_hidden, hidden_dialbgm_entry, hidden_jamendo_entry):
        sub.refresh_from_db()
        assert sub.status == Status.SCORED, sub.status_detail
    invalid_hidden_entry.refresh_from_db()
    assert invalid_hidden_entry.status == Status.INVALID
    for entry in (hidden_dialbgm_entry, hidden_jamendo_entry, alice_public):
        refs = dial_secret if entry == hidden_dialbgm_entry else jam_secret if entry == hidden_jamendo_entry else []
        for row in ItemScore.objects.filter(submission=entry):
            gold = refs[row.index].get("answer") or refs[row.index].get("gold_ranking") if refs else ""
            row.notes = {"judge:test": {"status": "ok", "rationale": f"{JUDGE_SENTINEL} checked against {gold}",
                                        "raw": f"score 2; reference was {gold}"}}
            row.save(update_fields=["notes"])
    return World(dialbgm_split, dialbgm_hidden, jamendo_hidden, alice_public, alice_private, bob_hidden,
                 hidden_dialbgm_entry, hidden_jamendo_entry, invalid_hidden_entry,
                 gold_needles(dial_secret) + gold_needles(jam_secret))


def session(user: Any | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def body(response: Any) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return response.content


def submission_routes(uid: Any) -> list[str]:
    return [f"/s/{uid}/", f"/api/v1/submissions/{uid}", f"/api/v1/submissions/{uid}/items",
            f"/s/{uid}/items.csv", f"/s/{uid}/items.jsonl"]


def board_routes(split: Split) -> list[str]:
    b, s = split.benchmark.name, split.name
    return [f"/b/{b}/{s}/", f"/api/v1/benchmarks/{b}/{s}/leaderboard", f"/b/{b}/{s}/leaderboard.csv",
            f"/b/{b}/{s}/leaderboard.json", f"/api/v1/benchmarks/{b}/{s}/heatmap",
            f"/b/{b}/{s}/?entry=latest", f"/api/v1/benchmarks/{b}/{s}/heatmap?entry=latest"]


# --- private and maintainer-hidden entries -----------------------------------------------------


@pytest.mark.slow  # loads the BERTScore model
class TestOneWorld:
    """Tests that read the world, built once for the class (what a test changes is rolled back after it)."""

    @pytest.fixture
    def alice(self, world_rows, db):
        return rows_fresh({"user": world_rows["alice"]})["user"]

    @pytest.fixture
    def bob(self, world_rows, db):
        return rows_fresh({"user": world_rows["bob"]})["user"]

    @pytest.fixture
    def maintainer(self, world_rows, db):
        return rows_fresh({"user": world_rows["maintainer"]})["user"]

    @pytest.mark.slow
    @pytest.mark.parametrize("viewer", ["anonymous", "other"])
    @pytest.mark.parametrize("which", ["private", "hidden"])
    def test_private_and_hidden_entries_answer_like_absent_ones(self, world, alice, bob, viewer, which):
        entry = world.alice_private if which == "private" else world.bob_hidden
        other = bob if entry.user_id == alice.pk else alice
        client = session(None if viewer == "anonymous" else other)
        absent = uuid.uuid4()
        for route, absent_route in zip(submission_routes(entry.uid), submission_routes(absent)):
            response, reference = client.get(route), client.get(absent_route)
            assert response.status_code == 404, route
            assert reference.status_code == 404
            content = body(response)
            assert entry.model_name.encode() not in content
            if route.startswith("/api/"):
                assert response.json() == reference.json() == {
                    "error": {"code": "not_found", "message": "no such submission", "field": None}}
        if viewer == "other":  # the same through an API token
            token = client_for(other)
            for route in submission_routes(entry.uid):
                assert token.get(route).status_code == 404, route

    @pytest.mark.slow
    @pytest.mark.parametrize("viewer", ["anonymous", "other"])
    def test_listings_never_show_private_or_hidden_entries(self, world, bob, viewer):
        # Bob is "other" for Alice's private entry; for his own hidden one we ask as anonymous only
        client = session(None if viewer == "anonymous" else bob)
        hidden_names = [world.alice_private.model_name] + (
            [world.bob_hidden.model_name] if viewer == "anonymous" else [])
        for route in [*board_routes(world.public_split), "/", "/b/dialbgm/", "/api/v1/benchmarks",
                      "/api/v1/benchmarks/dialbgm"]:
            response = client.get(route)
            assert response.status_code == 200, route
            content = body(response)
            for name in hidden_names:
                assert name.encode() not in content, (route, name)
            for uid in (world.alice_private.uid, *([world.bob_hidden.uid] if viewer == "anonymous" else [])):
                assert str(uid).encode() not in content, (route, uid)
        data = client.get("/api/v1/benchmarks/dialbgm/test/leaderboard").json()
        listed = {r["entry"]["model_name"] for r in data["rows"]}
        expected = {world.alice_public.model_name} | ({world.bob_hidden.model_name} if viewer == "other" else set())
        assert listed == expected
        heat = client.get("/api/v1/benchmarks/dialbgm/test/heatmap").json()
        assert len(heat["models"]) == len(expected)
        counts = client.get("/b/dialbgm/").content.decode()  # counts exclude private and hidden entries
        assert "1 entry" in counts and "2 entries" not in counts and "3 entries" not in counts

    @pytest.mark.slow
    def test_owner_sees_own_private_entry_highlighted_as_theirs(self, world, alice):
        client = session(alice)
        page = client.get("/b/dialbgm/test/").content.decode()
        row = page.split('data-model="Alice Secret Ranker"', 1)
        assert len(row) == 2, "the owner's private entry is listed for them"
        opening_tag = row[0].rsplit("<tr", 1)[1]
        assert 'class="mine' in opening_tag
        row_html = row[1].split("</tr>", 1)[0]
        assert '<span class="badge mine">yours</span>' in row_html and '<span class="badge">private</span>' in row_html
        assert "Bob Moderated Ranker" not in page  # someone else's hidden entry stays hidden
        data = client.get("/api/v1/benchmarks/dialbgm/test/leaderboard").json()
        mine = {r["entry"]["model_name"]: (r["mine"], r["entry"]["private"]) for r in data["rows"]}
        assert mine == {"Alice Open Ranker": (True, False), "Alice Secret Ranker": (True, True)}
        for route in submission_routes(world.alice_private.uid):
            assert client.get(route).status_code == 200, route
        assert client_for(alice).get(f"/s/{world.alice_private.uid}/items.csv").status_code == 200
        detail = client.get(f"/s/{world.alice_private.uid}/").content.decode()
        assert "only you and the maintainers see it" in detail
        assert bob_cannot_see(world)

    @pytest.mark.slow
    def test_maintainer_sees_everything(self, world, maintainer):
        client = session(maintainer)
        data = client.get("/api/v1/benchmarks/dialbgm/test/leaderboard").json()
        assert {r["entry"]["model_name"] for r in data["rows"]} == {
            "Alice Open Ranker", "Alice Secret Ranker", "Bob Moderated Ranker"}
        page = client.get("/b/dialbgm/test/").content.decode()
        assert "Alice Secret Ranker" in page and "Bob Moderated Ranker" in page
        csv_text = client.get("/b/dialbgm/test/leaderboard.csv").content.decode()
        assert "Alice Secret Ranker" in csv_text and "Bob Moderated Ranker" in csv_text
        assert len(client.get("/api/v1/benchmarks/dialbgm/test/heatmap").json()["models"]) == 3
        for entry in (world.alice_private, world.bob_hidden, world.hidden_dialbgm_entry, world.hidden_jamendo_entry):
            for route in submission_routes(entry.uid):
                assert client.get(route).status_code == 200, route
        # labels, per-item scores and judge notes on the hidden-label splits
        items = client.get(f"/api/v1/submissions/{world.hidden_jamendo_entry.uid}/items").json()
        assert items["details_visible"] is True and items["withheld"] is None
        assert all({"reference", "scores", "notes"} <= set(item) for item in items["items"])
        assert items["items"][0]["reference"].startswith("Yes, GOLDANS-yn0")
        assert JUDGE_SENTINEL in items["items"][0]["notes"]["judge:test"]["rationale"]
        page = client.get(f"/s/{world.hidden_dialbgm_entry.uid}/").content.decode()
        assert "<th scope=\"col\">Reference</th>" in page and JUDGE_SENTINEL in page
        jsonl = body(client.get(f"/s/{world.hidden_dialbgm_entry.uid}/items.jsonl")).decode().splitlines()
        first = json.loads(jsonl[0])
        assert first["reference"] == secret_dialbgm_references(60)[0]["gold_ranking"]
        assert set(first["scores"]) >= {"hit_at_1", "mrr", "ndcg_at_4", "kendall_tau_b"}
        csv_text = body(client.get(f"/s/{world.hidden_jamendo_entry.uid}/items.csv")).decode()
        assert "GOLDANS-se0" in csv_text

    @pytest.mark.slow
    @pytest.mark.parametrize("viewer", ["anonymous", "other", "owner"])
    def test_hidden_label_split_shows_the_entry_without_labels_scores_or_notes(self, world, alice, bob, viewer):
        user = {"anonymous": None, "other": bob, "owner": alice}[viewer]
        client = session(user)
        for entry in (world.hidden_dialbgm_entry, world.hidden_jamendo_entry):
            uid = entry.uid
            page = client.get(f"/s/{uid}/")
            assert page.status_code == 200
            text = page.content.decode()
            assert entry.model_name in text
            assert '<th scope="col">Reference</th>' not in text and '<th scope="col">Scores</th>' not in text
            assert JUDGE_SENTINEL not in text and f"/s/{uid}/items.csv" not in text
            api = client.get(f"/api/v1/submissions/{uid}")
            assert api.status_code == 200 and api.json()["model_name"] == entry.model_name
            assert api.json()["metrics"], "aggregate scores stay public"
            items = client.get(f"/api/v1/submissions/{uid}/items")
            if viewer == "owner":  # the owner reads back their own predictions, without labels or scores
                assert "gold labels and per-item scores are for maintainers" in text
                assert items.json()["details_visible"] is False and items.json()["withheld"]
                assert items.json()["total"] == entry.split.n_items
                for item in items.json()["items"]:
                    assert set(item) == {"index", "id", "qa_type", "inputs", "prediction"}, item
            else:  # anyone else gets no per-item row of another entry: neither page nor API
                assert items.status_code == 403 and items.json()["error"]["code"] == "withheld"
                assert 'id="item-table"' not in text and 'id="predictions-withheld"' in text
            for fmt in ("csv", "jsonl"):
                download = client.get(f"/s/{uid}/items.{fmt}")
                assert download.status_code == 403, fmt
                assert download.json()["error"]["code"] == "withheld"
            if user is not None:  # an API token changes nothing
                assert client_for(user).get(f"/s/{uid}/items.csv").status_code == 403
                token_items = client_for(user).get(f"/api/v1/submissions/{uid}/items")
                assert token_items.status_code == (200 if viewer == "owner" else 403)

    @pytest.mark.slow
    @pytest.mark.parametrize("viewer", ["anonymous", "other", "owner"])
    def test_no_route_returns_a_gold_answer_of_a_hidden_label_split(self, world, alice, bob, viewer):
        user = {"anonymous": None, "other": bob, "owner": alice}[viewer]
        client = session(user)
        routes = [*board_routes(world.dialbgm_hidden), *board_routes(world.jamendo_hidden),
                  "/", "/b/dialbgm/", "/b/jamendo-mt-qa/", "/api/v1/benchmarks", "/api/v1/benchmarks/dialbgm",
                  "/api/v1/benchmarks/jamendo-mt-qa", "/b/dialbgm/no-such-split/",
                  "/api/v1/benchmarks/dialbgm/no-such-split/leaderboard"]
        for entry in (world.hidden_dialbgm_entry, world.hidden_jamendo_entry, world.invalid_hidden_entry):
            uid = entry.uid
            routes += [*submission_routes(uid), f"/s/{uid}/?page=2", f"/s/{uid}/?q=secret",
                       f"/api/v1/submissions/{uid}/items?page=2", f"/api/v1/submissions/{uid}/items?page=999",
                       f"/api/v1/submissions/{uid}/items?run=2", f"/api/v1/submissions/{uid}/items?q=zq"]
        if user is not None:
            routes.append("/submissions/")
            routes.append("/submit/?split=dialbgm/hidden-test")
        responses = [(route, client.get(route)) for route in routes]
        # error messages of a dry run against the hidden split
        refs = secret_dialbgm_references(60)
        bad = [{"id": r["id"], "ranking": [*r["candidates"][:2], "zqcand-x"]} for r in refs[:5]]
        bad.append({"id": refs[6]["id"], "scores": {refs[6]["candidates"][0]: 1}})
        text = "".join(json.dumps(r) + "\n" for r in bad)
        responses.append(("validate", client.post("/api/v1/benchmarks/dialbgm/hidden-test/validate",
                                                  data=json.dumps({"predictions": text}),
                                                  content_type="application/json")))
        jam = secret_jamendo_references(6)
        text = "".join(json.dumps({"id": r["id"], "prediction": 3}) + "\n" for r in jam[:4])
        responses.append(("validate-qa", client.post("/api/v1/benchmarks/jamendo-mt-qa/hidden-qa/validate",
                                                     data=json.dumps({"predictions": text}),
                                                     content_type="application/json")))
        assert any(r.status_code == 403 for _, r in responses)
        assert any(r.status_code == 404 for _, r in responses)
        assert any(r.status_code == 200 and route.startswith("/api/v1/submissions") for route, r in responses)
        for route, response in responses:
            content = body(response).decode()
            for needle in world.needles:
                assert needle not in content, (route, needle)
            assert JUDGE_SENTINEL not in content, route

    def test_the_gold_search_is_meaningful_for_a_maintainer(self, world, maintainer):
        """The same crawl as a maintainer finds the gold strings: the needles are the right ones."""
        client = session(maintainer)
        found = set()
        for entry in (world.hidden_dialbgm_entry, world.hidden_jamendo_entry):
            for route in [*submission_routes(entry.uid), f"/api/v1/submissions/{entry.uid}/items?page=2"]:
                content = body(client.get(route)).decode()
                found.update(n for n in world.needles if n in content)
        ranking_forms = {json.dumps(r["gold_ranking"]) for r in secret_dialbgm_references(60)}
        answers = {r["answer"] for r in secret_jamendo_references(6)}
        assert ranking_forms <= found and answers <= found

    def test_hiding_a_listed_entry_takes_it_off_at_once(self, world, alice, maintainer):
        anonymous = Client()
        assert "Alice Open Ranker" in anonymous.get("/b/dialbgm/test/").content.decode()  # cached now
        submission = Submission.objects.get(pk=world.alice_public.pk)
        submission.hidden = True
        submission.save()  # the admin's change form
        assert "Alice Open Ranker" not in anonymous.get("/b/dialbgm/test/").content.decode()
        assert anonymous.get("/api/v1/benchmarks/dialbgm/test/leaderboard").json()["rows"] == []
        assert anonymous.get("/api/v1/benchmarks/dialbgm/test/heatmap").json()["models"] == []
        assert anonymous.get(f"/s/{submission.uid}/").status_code == 404
        # the admin's bulk action too
        maintainer.is_superuser = True
        maintainer.save()
        client = session(maintainer)
        response = client.post("/admin/leaderboard/submission/",
                               {"action": "unhide", "_selected_action": [submission.pk]})
        assert response.status_code == 302
        assert "Alice Open Ranker" in anonymous.get("/b/dialbgm/test/").content.decode()
        response = client.post("/admin/leaderboard/submission/",
                               {"action": "hide", "_selected_action": [submission.pk]})
        assert "Alice Open Ranker" not in anonymous.get("/b/dialbgm/test/").content.decode()
        # deleting an entry takes it off too
        Submission.objects.filter(pk=submission.pk).update(hidden=False)
        leaderboard_changed(submission.split_id)
        assert "Alice Open Ranker" in anonymous.get("/b/dialbgm/test/").content.decode()
        Submission.objects.get(pk=submission.pk).delete()
        assert "Alice Open Ranker" not in anonymous.get("/b/dialbgm/test/").content.decode()


def bob_cannot_see(world: World) -> bool:
    return Client().get(f"/s/{world.alice_private.uid}/").status_code == 404


# --- public entries on hidden-label splits ---------------------------------------------------------


def test_inputs_download_never_carries_labels(make_split):
    from django.test import Client

    from tests.helpers.datagen import dialbgm_references, jamendo_references

    jamendo = jamendo_references(5, seed=21)
    make_split("jamendo-mt-qa", "full", jamendo, hidden=True)
    dialbgm = dialbgm_references(5, seed=21)
    make_split("dialbgm", "test", dialbgm, hidden=True)
    for url, refs in (("/b/jamendo-mt-qa/full/inputs.jsonl", jamendo), ("/b/dialbgm/test/inputs.jsonl", dialbgm)):
        response = Client().get(url)
        text = b"".join(response.streaming_content).decode()
        rows = [json.loads(line) for line in text.splitlines()]
        assert [r["id"] for r in rows] == [r["id"] for r in refs]
        assert all("answer" not in r and "gold_ranking" not in r for r in rows)
        for ref, row in zip(refs, rows):
            assert all(row[k] == ref[k] for k in ("question", "audio1", "audio2", "candidates") if k in ref)
            if "answer" in ref and ref["qa_type"] == "sentence":
                assert ref["answer"] not in text
