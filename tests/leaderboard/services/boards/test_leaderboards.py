"""Leaderboards: sorting, filters, best/latest rows, runs, honest ranks, signatures, baselines, exports.

Most entries here are built with controlled MetricValue rows (exact values and intervals), so every
expected rank and value is known; a few go through the real pipeline.
"""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client

from leaderboard.models import Benchmark, MetricValue, PublishedResult, Split, Submission
from leaderboard.services.boards.leaderboards import column_id
from leaderboard.services.references.baselines import baselines_load
from scoring import BENCHMARKS, BenchmarkSpec, MetricSpec
from scoring.specs.base import Profile
from tests.helpers.boards import api_rows, make_entry, page_rows, signature
from tests.helpers.datagen import dialbgm_predictions
from tests.helpers.site import upload

pytestmark = pytest.mark.django_db

DIAL = "/b/dialbgm/test/"
DIAL_API = "/api/v1/benchmarks/dialbgm/test/leaderboard"
JAM = "/b/jamendo-mt-qa/full/"
JAM_API = "/api/v1/benchmarks/jamendo-mt-qa/full/leaderboard"


def dial_values(hit: float, mrr: float, ndcg: float, tau: float) -> dict[str, float]:
    return {"hit_at_1": hit, "mrr": mrr, "ndcg_at_4": ndcg, "kendall_tau_b": tau}


def col(split: Split, key: str, **fields: str) -> str:
    return column_id(key, signature(split, key, **fields))


def sort_note(page: str) -> tuple[str, str, bool]:
    """(sorted-by label, direction phrase, says it is the default) from the page's sort note."""
    note = page.split('<p class="sortnote" id="sort-note">', 1)[1].split("</p>", 1)[0]
    match = re.match(r"Sorted by <strong>(.+?)</strong> \((higher is better|lower is better)[^)]*\)"
                     r"(, the default sort)?\.", note)
    assert match, note
    return match[1], match[2], bool(match[3])


def csv_rows(content: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(content.decode())))


# --- sorting -------------------------------------------------------------------------------------


@pytest.fixture
def three_models(dialbgm_split, alice):
    make_entry(dialbgm_split, alice, "Model A", dial_values(0.5, 0.6, 0.7, 0.1))
    make_entry(dialbgm_split, alice, "Model B", dial_values(0.4, 0.8, 0.6, 0.3))
    make_entry(dialbgm_split, alice, "Model C", dial_values(0.3, 0.7, 0.9, 0.2))
    return dialbgm_split


def test_default_sort_is_stated_in_page_and_json(three_models):
    client = Client()
    data = client.get(DIAL_API).json()
    assert data["sort"] == {"column": col(three_models, "hit_at_1"), "key": "hit_at_1", "label": "Hit@1",
                            "direction": "descending", "default": True}
    assert api_rows(data) == [("Model A", 1, False), ("Model B", 2, False), ("Model C", 3, False)]
    assert [c["key"] for c in data["columns"]] == ["hit_at_1", "mrr", "ndcg_at_4", "kendall_tau_b"]
    assert all(c["higher_is_better"] is True for c in data["columns"])
    page = client.get(DIAL).content.decode()
    assert sort_note(page) == ("Hit@1", "higher is better", True)
    assert [(r["model"], r["rank"]) for r in page_rows(page.encode())] == [
        ("Model A", 1), ("Model B", 2), ("Model C", 3)]
    header = page.split('data-column="hit_at_1"')[0].rsplit("<th", 1)[1]
    assert 'class="num sorted"' in header and 'aria-sort="descending"' in header


@pytest.mark.parametrize(("sort", "order"), [
    ("mrr", ["Model B", "Model C", "Model A"]),
    ("ndcg_at_4", ["Model C", "Model A", "Model B"]),
    ("kendall_tau_b", ["Model B", "Model C", "Model A"]),
    ("hit_at_1", ["Model A", "Model B", "Model C"]),
])
@pytest.mark.parametrize("by", ["key", "column id"])
def test_sort_by_any_column(three_models, sort, order, by):
    wanted = sort if by == "key" else col(three_models, sort)
    client = Client()
    data = client.get(DIAL_API, {"sort": wanted}).json()
    assert [m for m, _, _ in api_rows(data)] == order
    assert [r for _, r, _ in api_rows(data)] == [1, 2, 3]
    assert data["sort"]["key"] == sort and data["sort"]["column"] == col(three_models, sort)
    assert data["sort"]["default"] is (sort == "hit_at_1")
    page = client.get(DIAL, {"sort": wanted}).content.decode()
    assert [r["model"] for r in page_rows(page.encode())] == order
    label = {"mrr": "MRR", "ndcg_at_4": "nDCG@4", "kendall_tau_b": "Kendall τb", "hit_at_1": "Hit@1"}[sort]
    assert sort_note(page) == (label, "higher is better", sort == "hit_at_1")
    csv_order = [r["model_name"] for r in csv_rows(client.get("/b/dialbgm/test/leaderboard.csv",
                                                              {"sort": wanted}).content)]
    assert csv_order == order


def test_unknown_sort_is_refused_by_the_api_not_silently_replaced(three_models):
    response = Client().get(DIAL_API, {"sort": "no-such-column"})
    assert response.status_code == 400 and response.json()["error"]["field"] == "sort"
    data = Client().get(DIAL_API, {"sort": "mrr"}).json()
    assert data["sort"]["key"] == "mrr" and data["sort"]["default"] is False


def test_lower_is_better_column_sorts_ascending_and_says_so(monkeypatch, alice):
    spec = BenchmarkSpec(
        name="lower-is-better-test", title="Error rates", task_type="generation", description="test only",
        profiles=(Profile("official", "test", (
            MetricSpec("wer", "sacrebleu", "bleu", "WER", higher_is_better=False, decimals=2),
            MetricSpec("bleu", "sacrebleu", "bleu", "BLEU", decimals=2),
        )),),
        official_profile="official", default_sort="wer")
    monkeypatch.setitem(BENCHMARKS, spec.name, spec)
    split = Split.objects.create(benchmark=Benchmark.objects.create(name=spec.name), name="test", title="Test")
    make_entry(split, alice, "Worst", {"wer": (20.0, 19.0, 21.0), "bleu": (10.0, 9.0, 11.0)})
    make_entry(split, alice, "Best", {"wer": (10.0, 9.0, 11.0), "bleu": (30.0, 29.0, 31.0)})
    make_entry(split, alice, "Close", {"wer": (10.5, 10.2, 12.0), "bleu": (25.0, 24.0, 26.0)})
    make_entry(split, alice, "Middle", {"wer": (12.2, 12.1, 12.5), "bleu": (20.0, 19.0, 21.0)})
    client = Client()
    data = client.get(f"/api/v1/benchmarks/{spec.name}/test/leaderboard").json()
    assert data["sort"]["direction"] == "ascending" and data["sort"]["default"] is True
    assert api_rows(data) == [("Best", 1, False), ("Close", 1, True), ("Middle", 3, False), ("Worst", 4, False)]
    assert [c["higher_is_better"] for c in data["columns"]] == [False, True]
    page = client.get(f"/b/{spec.name}/test/").content.decode()
    assert sort_note(page) == ("WER", "lower is better", True)
    assert 'aria-sort="ascending"' in page
    by_bleu = client.get(f"/api/v1/benchmarks/{spec.name}/test/leaderboard", {"sort": "bleu"}).json()
    assert by_bleu["sort"]["direction"] == "descending"
    assert [m for m, _, _ in api_rows(by_bleu)] == ["Best", "Close", "Middle", "Worst"]


# --- filters --------------------------------------------------------------------------------------


def test_filters_by_dialbgm_settings(dialbgm_split, alice):
    entries = {
        "Full audio MLLM": {"input": "full_dialogue", "modality": "audio", "category": "multimodal_llm"},
        "Summary audio MLLM": {"input": "summary", "modality": "audio", "category": "multimodal_llm"},
        "Summary caption LLM": {"input": "summary", "modality": "caption", "category": "text_llm"},
        "Full caption retrieval": {"input": "full_dialogue", "modality": "caption", "category": "retrieval_model"},
    }
    for n, (name, settings) in enumerate(entries.items()):
        make_entry(dialbgm_split, alice, name, dial_values(0.9 - n / 10, 0.5, 0.5, 0.1), settings=settings)
    client = Client()
    cases = [
        ({}, ["Full audio MLLM", "Summary audio MLLM", "Summary caption LLM", "Full caption retrieval"]),
        ({"input": "summary"}, ["Summary audio MLLM", "Summary caption LLM"]),
        ({"modality": "caption"}, ["Summary caption LLM", "Full caption retrieval"]),
        ({"input": "summary", "modality": "audio"}, ["Summary audio MLLM"]),
        ({"category": "retrieval_model"}, ["Full caption retrieval"]),
        ({"category": "audio_language_model"}, []),
    ]
    whole_rank = {name: n for n, name in enumerate(entries, start=1)}
    for params, expected in cases:
        data = client.get(DIAL_API, params).json()
        assert [m for m, _, _ in api_rows(data)] == expected, params
        assert [r for _, r, _ in api_rows(data)] == [whole_rank[m] for m in expected], "the whole board's ranks"
        assert data["filters"] == params
        page = client.get(DIAL, params).content
        assert [r["model"] for r in page_rows(page)] == expected, params
        for value in params.values():
            assert f'<option value="{value}" selected>' in page.decode()
        assert [r["model_name"] for r in csv_rows(client.get("/b/dialbgm/test/leaderboard.csv", params).content)] \
            == expected
        assert [r["entry"]["model_name"] for r in client.get("/b/dialbgm/test/leaderboard.json", params).json()[
            "rows"]] == expected
        heat = client.get("/api/v1/benchmarks/dialbgm/test/heatmap", params).json()
        assert len(heat["models"]) == len(expected)
    assert "No scored entries match these filters yet" in client.get(DIAL, cases[-1][0]).content.decode()


def test_filters_by_jamendo_model_type(jamendo_split, alice):
    for n, kind in enumerate(["Cap", "Multi", "Cap"]):
        make_entry(jamendo_split, alice, f"{kind} model {n}", {"yes_no_accuracy": 0.9 - n / 10},
                   settings={"type": kind})
    client = Client()
    assert [m for m, _, _ in api_rows(client.get(JAM_API, {"type": "Cap"}).json())] == ["Cap model 0", "Cap model 2"]
    assert [r["model"] for r in page_rows(client.get(JAM, {"type": "Multi"}).content)] == ["Multi model 1"]
    rows = csv_rows(client.get("/b/jamendo-mt-qa/full/leaderboard.csv", {"type": "Cap"}).content)
    assert [(r["model_name"], r["setting_type"]) for r in rows] == [("Cap model 0", "Cap"), ("Cap model 2", "Cap")]


# --- one row per model ----------------------------------------------------------------------


def test_one_row_per_model_with_best_or_latest_entry_and_all_entries_listed(dialbgm_split, alice, bob):
    old = make_entry(dialbgm_split, alice, "Tuned", dial_values(0.60, 0.5, 0.5, 0.1), age_days=3)
    best = make_entry(dialbgm_split, alice, "Tuned", dial_values(0.70, 0.5, 0.5, 0.1), age_days=2)
    latest = make_entry(dialbgm_split, alice, "Tuned", dial_values(0.50, 0.5, 0.5, 0.1), age_days=1)
    other = make_entry(dialbgm_split, bob, "Steady", dial_values(0.65, 0.5, 0.5, 0.1), age_days=1)
    summary = make_entry(dialbgm_split, alice, "Tuned", dial_values(0.20, 0.5, 0.5, 0.1), age_days=0,
                         settings={"input": "summary"})  # other settings: its own row
    client = Client()
    data = client.get(DIAL_API).json()
    assert data["entry_policy"] == "best"
    assert [(r["entry"]["id"], r["rank"], r["entry_count"]) for r in data["rows"]] == [
        (str(best.uid), 1, 3), (str(other.uid), 2, 1), (str(summary.uid), 3, 1)]
    assert [e["id"] for e in data["rows"][0]["entries"]] == [str(latest.uid), str(best.uid), str(old.uid)]
    data = client.get(DIAL_API, {"entry": "latest"}).json()
    assert data["entry_policy"] == "latest"
    assert [(r["entry"]["id"], r["rank"]) for r in data["rows"]] == [
        (str(other.uid), 1), (str(latest.uid), 2), (str(summary.uid), 3)]
    assert [r["entry"]["metrics"][col(dialbgm_split, "hit_at_1")]["value"] for r in data["rows"]] == [0.65, 0.5, 0.2]
    page = client.get(DIAL, {"entry": "latest"}).content.decode()
    assert "One row per model: its <strong>latest</strong> entry." in page
    assert '<option value="latest" selected>' in page
    assert "<summary>all 3 entries</summary>" in page
    for entry in (old, best, latest):
        assert f'href="/s/{entry.uid}/"' in page
    assert [r["model"] for r in page_rows(page.encode())] == ["Steady", "Tuned", "Tuned"]
    assert Client().get(DIAL, {"entry": "nonsense"}).context["board"].entry_policy == "best"


def test_several_runs_show_mean_std_and_interval(dialbgm_split, dialbgm_refs, alice,
                                                 django_capture_on_commit_callbacks):
    runs = [dialbgm_predictions(dialbgm_refs, seed=s, skill=0.6) for s in (1, 2, 3)]
    with django_capture_on_commit_callbacks(execute=True):
        multi_id = upload(alice, dialbgm_split, runs, model_name="Three runs").json()["id"]
        single_id = upload(alice, dialbgm_split, runs[:1], model_name="One run").json()["id"]
    multi, single = Submission.objects.get(uid=multi_id), Submission.objects.get(uid=single_id)
    hit = multi.metric_values.get(key="hit_at_1", current=True)
    assert len(hit.per_run) == 3 and hit.std is not None and hit.std > 0
    assert hit.value == pytest.approx(sum(hit.per_run) / 3)
    assert hit.ci_low < hit.value < hit.ci_high
    data = Client().get(DIAL_API).json()
    rows = {r["entry"]["model_name"]: r["entry"] for r in data["rows"]}
    cell = rows["Three runs"]["metrics"][column_id("hit_at_1", hit.signature)]
    assert cell == {"key": "hit_at_1", "value": hit.value, "std": hit.std, "ci95": [hit.ci_low, hit.ci_high],
                    "per_run": hit.per_run}
    assert rows["Three runs"]["runs"] == 3 and rows["One run"]["runs"] == 1
    assert rows["One run"]["metrics"][column_id("hit_at_1", hit.signature)]["std"] is None
    page = {r["model"]: r for r in page_rows(Client().get(DIAL).content)}
    expected = f"{hit.value:.4f}<span class=\"std\"> ± {hit.std:.4f}</span>"
    assert page["Three runs"]["cells"][0].startswith(expected)
    assert f"[{hit.ci_low:.4f}, {hit.ci_high:.4f}]" in page["Three runs"]["cells"][0]
    assert "<div class=\"meta\">3 runs</div>" in page["Three runs"]["html"]  # no stray " · "
    assert "±" not in page["One run"]["cells"][0] and "[" in page["One run"]["cells"][0]
    detail = Client().get(f"/s/{multi.uid}/").content.decode()
    assert "Value (mean ± std)" in detail and f"{hit.value:.4f} ± {hit.std:.4f}" in detail
    assert single.status == "scored"


# --- honest ranks ------------------------------------------------------------------------------


def test_overlapping_intervals_share_a_rank_and_separate_ones_do_not(dialbgm_split, alice):
    for name, hit in [("A", (0.80, 0.76, 0.84)), ("B", (0.77, 0.73, 0.81)), ("C", (0.72, 0.68, 0.755)),
                      ("D", (0.70, 0.66, 0.74)), ("E", (0.50, 0.45, 0.55))]:
        make_entry(dialbgm_split, alice, name, {**dial_values(0, 0.5, 0.5, 0.1), "hit_at_1": hit})
    # B overlaps A: tied at 1. C overlaps B but not A (the group's top): a new rank, 3. D overlaps C: 3.
    expected = [("A", 1, False), ("B", 1, True), ("C", 3, False), ("D", 3, True), ("E", 5, False)]
    client = Client()
    assert api_rows(client.get(DIAL_API).json()) == expected
    rows = page_rows(client.get(DIAL).content)
    assert [(r["model"], r["rank"], r["tied"]) for r in rows] == expected
    assert [r["rank"] for r in csv_rows(client.get("/b/dialbgm/test/leaderboard.csv").content)] == [
        "1", "1", "3", "3", "5"]
    assert "share its rank" in client.get(DIAL_API).json()["ranking"]


def test_without_intervals_only_equal_values_tie(dialbgm_split, alice):
    for name, hit in [("P", 0.6), ("Q", 0.6), ("R", 0.59)]:
        make_entry(dialbgm_split, alice, name, dial_values(hit, 0.5, 0.5, 0.1))
    rows = api_rows(Client().get(DIAL_API).json())
    assert sorted(rows[:2]) in ([("P", 1, False), ("Q", 1, True)], [("P", 1, True), ("Q", 1, False)])
    assert rows[2] == ("R", 3, False)


def test_identical_predictions_tie_and_far_apart_ones_do_not(dialbgm_split, dialbgm_refs, alice, bob, make_user,
                                                             django_capture_on_commit_callbacks):
    good = dialbgm_predictions(dialbgm_refs, seed=5, skill=1.0)
    poor = [{"id": r["id"], "ranking": r["gold_ranking"][::-1]} for r in dialbgm_refs]
    with django_capture_on_commit_callbacks(execute=True):
        upload(alice, dialbgm_split, [good], model_name="Oracle A")
        upload(bob, dialbgm_split, [good], model_name="Oracle B")
        upload(make_user("carol"), dialbgm_split, [poor], model_name="Reversed")
    rows = api_rows(Client().get(DIAL_API).json())
    assert sorted(rows[:2]) == [("Oracle A", 1, False), ("Oracle B", 1, True)] or \
        sorted(rows[:2]) == [("Oracle A", 1, True), ("Oracle B", 1, False)]
    assert rows[2] == ("Reversed", 3, False)
    values = {m.submission.model_name: m.value for m in MetricValue.objects.filter(key="hit_at_1")}
    assert values == {"Oracle A": 1.0, "Oracle B": 1.0, "Reversed": 0.0}


def test_incomplete_entries_rank_after_complete_ones(jamendo_split, alice):
    full = {"yes_no_accuracy": 0.6, "short_answer_accuracy": 0.5, "bleu": 20.0, "rouge1": 40.0, "rouge2": 20.0,
            "rougeL": 30.0, "bertscore_f1": 0.88}
    no_bert = {k: v for k, v in full.items() if k != "bertscore_f1"}
    make_entry(jamendo_split, alice, "No BERTScore", {**no_bert, "yes_no_accuracy": (0.95, 0.90, 0.99)})
    make_entry(jamendo_split, alice, "Complete high", {**full, "yes_no_accuracy": (0.62, 0.55, 0.70)})
    make_entry(jamendo_split, alice, "Complete low", {**full, "yes_no_accuracy": (0.58, 0.40, 0.92),
                                                      "bertscore_f1": 0.87})
    make_entry(jamendo_split, alice, "No accuracy", {k: v for k, v in full.items() if k != "yes_no_accuracy"}
               | {"bertscore_f1": 0.90})
    client = Client()
    data = client.get(JAM_API).json()
    # the incomplete entry's interval overlaps "Complete low", but ranks never join across the boundary
    assert api_rows(data) == [("Complete high", 1, False), ("Complete low", 1, True), ("No BERTScore", 3, False),
                              ("No accuracy", None, False)]
    assert [(r["complete"], r["missing"]) for r in data["rows"]] == [
        (True, []), (True, []), (False, ["BERT-F1"]), (False, ["Yes/No acc."])]
    rows = page_rows(client.get(JAM).content)
    assert [(r["model"], r["rank"]) for r in rows] == [
        ("Complete high", 1), ("Complete low", 1), ("No BERTScore", 3), ("No accuracy", None)]
    assert "incomplete" in rows[2]["classes"] and "incomplete: no BERT-F1" in rows[2]["html"]
    bert = [c["key"] for c in data["columns"]].index("bertscore_f1")
    assert "n/a" in rows[2]["cells"][bert] and "0.8800" in rows[0]["cells"][bert]
    by_bert = api_rows(client.get(JAM_API, {"sort": "bertscore_f1"}).json())
    assert by_bert == [("Complete high", 1, False), ("Complete low", 2, False), ("No accuracy", 3, False),
                       ("No BERTScore", None, False)]


# --- signatures ------------------------------------------------------------------------------------


def test_a_variant_column_is_labelled_by_what_differs_from_the_main_one(jamendo_split, alice):
    current = signature(jamendo_split, "bertscore_f1", impl="bert-score", model="roberta-large", layer="17")
    earlier = current.replace("|rules:1", "")  # scored before the family's rules were named
    older_engine = current.replace("|scoring:", "|scoring:0.0.")
    base = {"yes_no_accuracy": 0.5, "short_answer_accuracy": 0.5, "bleu": 20.0, "rouge1": 40.0, "rouge2": 20.0,
            "rougeL": 30.0}
    for name, sig in [("A", current), ("B", current), ("C", earlier), ("D", older_engine)]:
        make_entry(jamendo_split, alice, name, {**base, "bertscore_f1": 0.8}, signatures={"bertscore_f1": sig})
    bert = [c for c in Client().get(JAM_API).json()["columns"] if c["key"] == "bertscore_f1"]
    assert [c["label"] for c in bert] == ["BERT-F1", "BERT-F1 [earlier rules]",
                                          f"BERT-F1 [scoring {older_engine.rsplit(':', 1)[1]}]"]


def test_different_signatures_get_separate_columns_never_ranked_together(jamendo_split, alice):
    roberta = signature(jamendo_split, "bertscore_f1", impl="bert-score", model="roberta-large", layer="17")
    deberta = signature(jamendo_split, "bertscore_f1", impl="bert-score", model="microsoft/deberta-xlarge-mnli",
                        layer="40")
    base = {"yes_no_accuracy": 0.5, "short_answer_accuracy": 0.5, "bleu": 20.0, "rouge1": 40.0, "rouge2": 20.0,
            "rougeL": 30.0}
    for name, value, sig in [("R1", 0.88, roberta), ("R2", 0.87, roberta), ("R3", 0.86, roberta),
                             ("D1", 0.70, deberta), ("D2", 0.95, deberta)]:
        make_entry(jamendo_split, alice, name, {**base, "bertscore_f1": value}, signatures={"bertscore_f1": sig})
    client = Client()
    data = client.get(JAM_API).json()
    bert = [c for c in data["columns"] if c["key"] == "bertscore_f1"]
    assert [(c["id"], c["signature"], c["variant"]) for c in bert] == [
        (column_id("bertscore_f1", roberta), roberta, False), (column_id("bertscore_f1", deberta), deberta, True)]
    assert bert[1]["label"] == "BERT-F1 [model microsoft/deberta-xlarge-mnli]"
    for row in data["rows"]:  # every value sits in the column of its own signature, never in the other
        cells = row["entry"]["metrics"]
        assert (bert[0]["id"] in cells) != (bert[1]["id"] in cells)
    main = client.get(JAM_API, {"sort": "bertscore_f1"}).json()
    assert main["sort"]["column"] == bert[0]["id"]
    ranked = [(m, r) for m, r, _ in api_rows(main)]
    assert ranked[:3] == [("R1", 1), ("R2", 2), ("R3", 3)] and sorted(ranked[3:]) == [("D1", None), ("D2", None)]
    variant = client.get(JAM_API, {"sort": bert[1]["id"]}).json()
    assert variant["sort"]["column"] == bert[1]["id"] and variant["sort"]["default"] is False
    ranked = [(m, r) for m, r, _ in api_rows(variant)]
    assert ranked[:2] == [("D2", 1), ("D1", 2)] and sorted(ranked[2:]) == [("R1", None), ("R2", None), ("R3", None)]
    page = client.get(JAM, {"sort": bert[1]["id"]}).content.decode()
    assert "BERT-F1 [model microsoft/deberta-xlarge-mnli]" in page and roberta in page and deberta in page
    assert [(r["model"], r["rank"]) for r in page_rows(page.encode())] == ranked
    rows = csv_rows(client.get("/b/jamendo-mt-qa/full/leaderboard.csv").content)
    assert rows[0]["BERT-F1 signature"] == roberta
    assert rows[0]["BERT-F1 [model microsoft/deberta-xlarge-mnli] signature"] == deberta
    by_model = {r["model_name"]: r for r in rows}
    assert by_model["D2"]["BERT-F1 (bertscore_f1)"] == "" and by_model["R1"]["BERT-F1 (bertscore_f1)"] == "0.88"


# --- published baselines ---------------------------------------------------------------------------


def test_published_baselines_are_ranked_with_the_entries(dialbgm_split, alice):
    assert baselines_load() > 0
    make_entry(dialbgm_split, alice, "Site entry", dial_values(0.2, 0.3, 0.4, 0.05))
    client = Client()
    data = client.get(DIAL_API).json()
    assert api_rows(data) == [("Site entry", 31, False)]  # all 30 printed Hit@1 values are above 0.2
    assert data["counts"] == {"entries": 1, "published": 30} and data["papers"] == "shown"
    published = data["published"]
    tables = PublishedResult.objects.filter(split=dialbgm_split).values_list("table", flat=True).distinct()
    assert sorted(t["table"] for t in published) == sorted(set(tables))
    assert all(t["note"] == "reported in the paper, not re-scored here" for t in published)
    table3 = next(t for t in published if t["table"] == "Table 3")
    assert len(table3["rows"]) == 20
    gemini = table3["rows"][0]
    assert gemini["model"] == "Gemini 2.5 Pro" and gemini["metrics"]["hit_at_1"] == 0.3233
    page = client.get(DIAL).content.decode()
    board = page.split('<table class="board" id="leaderboard">', 1)[1].split("</table>", 1)[0]
    assert board.count('<tr class="paper" data-paper=') == 30 and 'data-paper="Gemini 2.5 Pro"' in board
    assert "reported in paper, not re-scored here" in board and ">0.3233</span>" in board
    assert [(r["model"], r["rank"]) for r in page_rows(page.encode())] == [("Site entry", 31)]
    assert '<p class="board-count" id="board-count">1 entry · 30 published results</p>' in page
    lines = csv_rows(client.get("/b/dialbgm/test/leaderboard.csv").content)  # the board's rows, in its order
    assert [(r["model_name"], r["source"]) for r in lines][-1] == ("Site entry", "site")
    assert [r["source"] for r in lines[:-1]] == ["paper"] * 30 and lines[-1]["rank"] == "31"
    exported = client.get("/b/dialbgm/test/leaderboard.json").json()
    assert exported["published"] == published and exported["published_rows"] == data["published_rows"]


# --- exports --------------------------------------------------------------------------------------------


def test_csv_and_json_exports_hold_the_rows_and_signatures(three_models, alice):
    make_entry(three_models, alice, "Model D", {**dial_values(0.2, 0.1, 0.1, 0.0), "hit_at_1": (0.2, 0.1, 0.3)},
               runs=2)
    client = Client()
    api = client.get(DIAL_API).json()
    exported = client.get("/b/dialbgm/test/leaderboard.json")
    assert exported.status_code == 200 and exported.json() == api
    assert [c["signature"] for c in api["columns"]] == [
        signature(three_models, k) for k in ("hit_at_1", "mrr", "ndcg_at_4", "kendall_tau_b")]
    response = client.get("/b/dialbgm/test/leaderboard.csv")
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="dialbgm-test-leaderboard.csv"' in response["Content-Disposition"]
    rows = csv_rows(response.content)
    assert [(r["rank"], r["model_name"], r["Hit@1 (hit_at_1)"], r["MRR (mrr)"]) for r in rows] == [
        ("1", "Model A", "0.5", "0.6"), ("2", "Model B", "0.4", "0.8"), ("3", "Model C", "0.3", "0.7"),
        ("4", "Model D", "0.2", "0.1")]
    assert (rows[3]["Hit@1 ci_low"], rows[3]["Hit@1 ci_high"]) == ("0.1", "0.3") and rows[3]["runs"] == "2"
    assert rows[0]["Hit@1 ci_low"] == rows[0]["Hit@1 ci_high"] == ""
    for key, label in [("hit_at_1", "Hit@1"), ("ndcg_at_4", "nDCG@4"), ("kendall_tau_b", "Kendall τb")]:
        assert {r[f"{label} signature"] for r in rows} == {signature(three_models, key)}
    assert [r["entry_id"] for r in rows] == [r["entry"]["id"] for r in api["rows"]]


@pytest.mark.slow
def test_judged_columns_without_a_judge_are_named_not_shown(alice, jamendo_split, jamendo_refs,
                                                            django_capture_on_commit_callbacks):
    from leaderboard.services.boards import leaderboards
    from tests.helpers.datagen import jamendo_predictions
    from tests.helpers.site import upload

    with django_capture_on_commit_callbacks(execute=True):
        upload(alice, jamendo_split, [jamendo_predictions(jamendo_refs)], model_name="Unjudged")
    board = leaderboards.build(jamendo_split, None, {})
    assert not any(c.key.startswith("judge_") for c in board.columns)
    assert board.not_judged == ["Correctness", "Comp. validity", "Reasoning", "Judge 0-5"]
    assert board.rows[0].complete  # a column nobody can have does not make entries incomplete
    page = Client().get("/b/jamendo-mt-qa/full/").content.decode()
    assert "Not judged on this site: Correctness, Comp. validity, Reasoning, Judge 0-5" in page
