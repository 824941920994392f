"""LLM-as-a-judge scoring: backends, rubric profiles, parsing, caching and the ``judge`` metric family.

The site builds named judges and hands them to the scorer::

    from scoring.judge import BackendConfig, Judge, SQLiteCache
    judge = Judge("gpt-4o-mini", BackendConfig(kind="openai", model="gpt-4o-mini",
                  api_key_env="OPENAI_API_KEY", input_usd_per_mtok=0.15, output_usd_per_mtok=0.6),
                  SQLiteCache("judge.sqlite"), budget_usd=5.0)
    scorer = Scorer(spec, references, context=ScoringContext(judges={"gpt-4o-mini": judge}))

Names are imported lazily: ``scoring`` imports the judged families' modules (``family``, ``mapping``; each
registers itself with ``@register_family``) without paying for httpx until a judge is actually built.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scoring.judge.agreement import Agreement, judge_agreement
    from scoring.judge.backends import BackendConfig, BackendError, Completion, complete_with_retries, make_backend
    from scoring.judge.cache import JudgeCache, MemoryCache, SQLiteCache, cache_key
    from scoring.judge.family import JudgeMetrics, judge_metric_specs
    from scoring.judge.parsing import PARSER_VERSION, OutputSpec, ParsedReply, parse_reply
    from scoring.judge.profiles import (
        JudgeProfile,
        Prompt,
        get_profile,
        judge_profiles,
        load_profile,
        register_profile,
        register_profile_file,
    )
    from scoring.judge.rank import RankOutcome, judge_rank
    from scoring.judge.runner import Judge, JudgeResult, judge_signature
    from scoring.judge.safety import injection_flag

_MODULE_OF = {
    "Agreement": "agreement", "judge_agreement": "agreement",
    "BackendConfig": "backends", "BackendError": "backends", "Completion": "backends",
    "complete_with_retries": "backends", "make_backend": "backends",
    "JudgeCache": "cache", "MemoryCache": "cache", "SQLiteCache": "cache", "cache_key": "cache",
    "JudgeMetrics": "family", "judge_metric_specs": "family",
    "PARSER_VERSION": "parsing", "OutputSpec": "parsing", "ParsedReply": "parsing", "parse_reply": "parsing",
    "JudgeProfile": "profiles", "Prompt": "profiles", "get_profile": "profiles", "judge_profiles": "profiles",
    "load_profile": "profiles", "register_profile": "profiles", "register_profile_file": "profiles",
    "RankOutcome": "rank", "judge_rank": "rank",
    "Judge": "runner", "JudgeResult": "runner", "judge_signature": "runner",
    "injection_flag": "safety",
}
__all__ = [
    "PARSER_VERSION",
    "Agreement",
    "BackendConfig",
    "BackendError",
    "Completion",
    "Judge",
    "JudgeCache",
    "JudgeMetrics",
    "JudgeProfile",
    "JudgeResult",
    "MemoryCache",
    "OutputSpec",
    "ParsedReply",
    "Prompt",
    "RankOutcome",
    "SQLiteCache",
    "cache_key",
    "complete_with_retries",
    "get_profile",
    "injection_flag",
    "judge_agreement",
    "judge_metric_specs",
    "judge_profiles",
    "judge_rank",
    "judge_signature",
    "load_profile",
    "make_backend",
    "parse_reply",
    "register_profile",
    "register_profile_file",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'scoring.judge' has no attribute {name!r}")
    return getattr(import_module(f"scoring.judge.{module}"), name)
