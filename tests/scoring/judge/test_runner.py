"""The runner: caching (memory and SQLite), bounded concurrency, the budget cap, unusable replies."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from scoring.judge.cache import MemoryCache, SQLiteCache, cache_key
from scoring.judge.profiles import Prompt, get_profile
from scoring.judge.runner import count_statuses
from tests.helpers.fake_llm import FakeLLM, Reply, fake_score

PAPER = get_profile("jamendo-paper")


def _prompts(texts: list[str], question: str = "How do they differ?") -> list[Prompt]:
    return [PAPER.render({"question": question, "gold": "A is faster.", "prediction": t}) for t in texts]


TEXTS = [f"answer number {i} " + "word " * i for i in range(12)]


def test_cache_hit_on_rescore_sends_nothing(fake: FakeLLM, make_judge) -> None:
    judge = make_judge()
    first = judge.judge(PAPER, _prompts(TEXTS))
    assert fake.count() == len(TEXTS) and {r.status for r in first} == {"judged"}
    again = judge.judge(PAPER, _prompts(TEXTS))
    assert fake.count() == len(TEXTS)  # no new request reached the server
    assert {r.status for r in again} == {"cached"}
    assert [r.values for r in again] == [r.values for r in first]
    assert all(r.requests == 0 and r.cost_usd == 0.0 and r.input_tokens == 0 for r in again)
    assert [r.rationale for r in again] == [r.rationale for r in first]


def test_sqlite_cache_survives_a_new_judge(fake: FakeLLM, make_judge, tmp_path: Path) -> None:
    path = tmp_path / "judge.sqlite"
    make_judge(cache=SQLiteCache(path)).judge(PAPER, _prompts(TEXTS))
    sent = fake.count()
    cache = SQLiteCache(path)
    results = make_judge(cache=cache).judge(PAPER, _prompts(TEXTS))
    assert fake.count() == sent and len(cache) == len(TEXTS)
    assert [r.values for r in results] == [{"score": float(fake_score(t))} for t in TEXTS]
    cache.close()


def test_identical_text_in_another_run_is_free(fake: FakeLLM, make_judge) -> None:
    judge = make_judge()
    judge.judge(PAPER, _prompts(["Track A is faster", "Track B is slower"]))
    results = judge.judge(PAPER, _prompts(["Track B is slower", "Track A is faster", "New words here"]))
    assert [r.status for r in results] == ["cached", "cached", "judged"]
    assert fake.count() == 3


def test_a_prompt_repeated_in_one_batch_is_sent_once(fake: FakeLLM, make_judge) -> None:
    results = make_judge().judge(PAPER, _prompts(["same text"] * 5))
    assert fake.count() == 1
    assert [r.status for r in results] == ["judged"] + ["cached"] * 4
    assert {r.values["score"] for r in results if r.values} == {2.0}


def test_a_different_question_or_setting_is_a_miss(fake: FakeLLM, make_judge) -> None:
    cache = MemoryCache()
    make_judge(cache=cache).judge(PAPER, _prompts(["text"]))
    make_judge(cache=cache).judge(PAPER, _prompts(["text"], question="Another question?"))
    make_judge(cache=cache, max_tokens=256).judge(PAPER, _prompts(["text"]))
    make_judge(cache=cache, model="gpt-4o").judge(PAPER, _prompts(["text"]))
    assert fake.count() == 4
    make_judge(cache=cache, max_concurrency=2, timeout_s=9.0).judge(PAPER, _prompts(["text"]))
    assert fake.count() == 4  # concurrency and timeouts do not change a reply


def test_cache_key_is_sha256_of_signature_and_prompt() -> None:
    prompt = _prompts(["x"])[0]
    key = cache_key({"judge_model": "m"}, prompt)
    assert len(key) == 64 and key == cache_key({"judge_model": "m"}, prompt)
    assert key != cache_key({"judge_model": "n"}, prompt)


def test_concurrency_is_bounded(fake: FakeLLM, make_judge) -> None:
    fake.delay = 0.05
    results = make_judge(max_concurrency=3).judge(PAPER, _prompts(TEXTS))
    assert len(results) == len(TEXTS) and fake.max_in_flight == 3


@pytest.mark.slow
def test_concurrency_is_bounded_across_threads(fake: FakeLLM, make_judge) -> None:
    fake.delay = 0.05
    judge = make_judge(max_concurrency=2)
    threads = [threading.Thread(target=judge.judge, args=(PAPER, _prompts(TEXTS, question=f"Q{i}")))
               for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert fake.count() == 3 * len(TEXTS) and fake.max_in_flight == 2


def test_budget_cap_skips_the_rest(fake: FakeLLM, make_judge) -> None:
    judge = make_judge(max_concurrency=1)
    [probe] = judge.judge(PAPER, _prompts(["probe"]))
    budget = probe.cost_usd * 3.5  # room for the probe and three more requests, not four
    capped = make_judge(max_concurrency=1, budget_usd=budget)
    results = capped.judge(PAPER, _prompts(TEXTS))
    counts = count_statuses(results)
    assert counts["judged"] == 4 and counts["skipped_budget"] == len(TEXTS) - 4
    assert [r.status for r in results] == ["judged"] * 4 + ["skipped_budget"] * (len(TEXTS) - 4)
    skipped = results[-1]
    assert skipped.values is None and skipped.requests == 0 and "budget" in (skipped.reason or "")
    assert capped.spent_usd >= budget and fake.count() == 1 + 4


def test_zero_budget_sends_nothing(fake: FakeLLM, make_judge) -> None:
    results = make_judge(budget_usd=0.0).judge(PAPER, _prompts(TEXTS[:3]))
    assert {r.status for r in results} == {"skipped_budget"} and fake.count() == 0


def test_unusable_reply_is_unjudged_with_raw_kept_and_not_cached(fake: FakeLLM, make_judge) -> None:
    fake.queue(Reply(content="I think it is pretty good!"), Reply(content='{"score": 9}'))
    judge = make_judge()
    results = judge.judge(PAPER, _prompts(["first answer"])) + judge.judge(PAPER, _prompts(["second answer"]))
    assert [r.status for r in results] == ["unjudged", "unjudged"]
    assert results[0].raw == "I think it is pretty good!" and "no JSON object" in (results[0].reason or "")
    assert "outside [0, 5]" in (results[1].reason or "")
    assert results[0].input_tokens > 0 and results[0].requests == 1  # the reply was paid for
    again = judge.judge(PAPER, _prompts(["first answer"]))
    assert again[0].status == "judged" and fake.count() == 3  # asked again, not served from the cache


def test_fenced_and_chatty_replies_over_http(fake: FakeLLM, make_judge) -> None:
    fake.queue(Reply(content='```json\n{"score": 2, "explanation": "partial"}\n```'),
               Reply(content='Sure. My evaluation: {"score": 5, "explanation": "all there"} Thanks!'))
    judge = make_judge(max_concurrency=1)
    results = judge.judge(PAPER, _prompts(["one", "two"]))
    assert [r.values for r in results] == [{"score": 2.0}, {"score": 5.0}]
    assert [r.rationale for r in results] == ["partial", "all there"]


def test_a_closed_judge_reconnects(fake: FakeLLM, make_judge) -> None:
    judge = make_judge()
    judge.judge(PAPER, _prompts(["one"]))
    judge.close()
    [result] = judge.judge(PAPER, _prompts(["two words"]))
    assert result.status == "judged" and fake.count() == 2
