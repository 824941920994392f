"""Judge commands for ``python -m scoring``: ``judge-profiles``, ``judge-check``, ``judge-rank``.

:func:`add_judge_commands` adds them to the main parser's subparsers; each sets
``handler`` (returns the exit status) like the other commands. The API key is
taken from the environment variable named by ``--api-key-env``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from scoring.judge.backends import BACKEND_KINDS, BackendConfig
from scoring.judge.cache import JudgeCache, MemoryCache, SQLiteCache
from scoring.judge.family import DIAGNOSTICS, JudgeMetrics
from scoring.judge.profiles import judge_profiles, register_profile_file
from scoring.judge.rank import CONTEXTS, DEFAULT_PROFILE, judge_rank, read_captions
from scoring.judge.runner import Judge
from scoring.metrics.base import ScoringContext


def add_judge_commands(subparsers: Any) -> None:
    """Register the judge subcommands on an ``argparse`` subparsers object."""
    listing = subparsers.add_parser("judge-profiles", help="list the LLM judge profiles")
    listing.add_argument("--json", action="store_true")
    listing.add_argument("--profile-file", type=Path, action="append", default=[], help="also load this profile TOML")
    listing.set_defaults(handler=_profiles)

    check = subparsers.add_parser("judge-check", help="judge one prediction file; print per-item results")
    check.add_argument("--benchmark", required=True)
    check.add_argument("--references", type=Path, required=True)
    check.add_argument("--predictions", type=Path, required=True)
    check.add_argument("--profile", required=True, help="a judge profile (see judge-profiles)")
    check.add_argument("--score-profile", help="for a gated profile: the profile whose score selects the items")
    check.add_argument("--limit", type=int, help="judge only the first N items")
    check.add_argument("--json", action="store_true", help="one JSON object per item")
    _judge_args(check)
    check.set_defaults(handler=_check)

    rank = subparsers.add_parser("judge-rank", help="DialBGM: rank candidates with an LLM judge; write predictions")
    rank.add_argument("--references", type=Path, required=True, help="DialBGM references JSONL")
    rank.add_argument("--out", type=Path, required=True, help="ranking predictions JSONL to write")
    rank.add_argument("--profile", default=DEFAULT_PROFILE)
    rank.add_argument("--context", choices=CONTEXTS, default="dialogue", help="full dialogue or one-line summary")
    rank.add_argument("--captions", type=Path, help="musiccaps-public.csv or a JSON object id -> caption")
    _judge_args(rank)
    rank.set_defaults(handler=_rank)


def _judge_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("judge backend")
    group.add_argument("--backend", choices=BACKEND_KINDS, required=True)
    group.add_argument("--model", required=True)
    group.add_argument("--base-url", default="", help="default: the provider's public API")
    group.add_argument("--api-key-env", help="name of the environment variable holding the API key")
    group.add_argument("--temperature", type=float, default=0.0)
    group.add_argument("--max-tokens", type=int, default=512)
    group.add_argument("--no-json-mode", action="store_true", help="do not ask an OpenAI-style server for JSON")
    group.add_argument("--seed", type=int)
    group.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    group.add_argument("--concurrency", type=int, default=8, help="requests in flight at most")
    group.add_argument("--max-retries", type=int, default=4)
    group.add_argument("--price-input", type=float, default=0.0, help="USD per million input tokens")
    group.add_argument("--price-output", type=float, default=0.0, help="USD per million output tokens")
    group.add_argument("--budget-usd", type=float, help="stop sending requests once this is spent")
    group.add_argument("--cache", type=Path, help="SQLite file of judged replies (default: in memory)")
    group.add_argument("--profile-file", type=Path, action="append", default=[], help="also load this profile TOML")


def build_judge(args: argparse.Namespace) -> Judge:
    """The judge the command-line options describe."""
    config = BackendConfig(
        kind=args.backend, model=args.model, base_url=args.base_url, api_key_env=args.api_key_env,
        temperature=args.temperature, max_tokens=args.max_tokens, json_mode=not args.no_json_mode,
        seed=args.seed, timeout_s=args.timeout, max_concurrency=args.concurrency, max_retries=args.max_retries,
        input_usd_per_mtok=args.price_input, output_usd_per_mtok=args.price_output,
    )
    cache: JudgeCache = SQLiteCache(args.cache) if args.cache else MemoryCache()
    return Judge(args.model, config, cache, budget_usd=args.budget_usd)


def _load_profile_files(args: argparse.Namespace) -> None:
    for path in args.profile_file:
        register_profile_file(path, replace=True)


def _profiles(args: argparse.Namespace) -> int:
    _load_profile_files(args)
    rows = [p.summary() for p in judge_profiles().values()]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        where = row["task_type"] + (f"/{row['qa_type']}" if row["qa_type"] else "")
        print(f"{row['name']:22} {where:25} {', '.join(row['outputs'])}\n{'':22} {row['source']}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from scoring.reading.problems import InvalidInput
    from scoring.reading.validation import load_predictions, load_references
    from scoring.specs import get_benchmark

    _load_profile_files(args)
    spec = get_benchmark(args.benchmark)
    try:
        references = load_references(spec, args.references)
        predictions = load_predictions(spec, references, args.predictions)
    except InvalidInput as exc:
        for problem in exc.log.problems:
            print(problem, file=sys.stderr)
        return 1
    refs, preds = references.references[: args.limit], predictions[: args.limit]
    params = {"profile": args.profile, "judge": "cli"}
    if args.score_profile:
        params["score_profile"] = args.score_profile
    with build_judge(args) as judge:
        family = JudgeMetrics(params, ScoringContext(judges={"cli": judge}))
        scores = family.score(refs, preds, {*family.profile.outputs, *DIAGNOSTICS})
    _print_items(refs, scores, family.profile.outputs, as_json=args.json)
    totals = {name: float(sum(v for v in scores[name].values if not math.isnan(v))) for name in DIAGNOSTICS}
    print(json.dumps({"profile": family.profile.name, "signature": family.signature_fields(""), "totals": totals}),
          file=sys.stderr)
    return 0


def _print_items(refs: list[Any], scores: dict[str, Any], outputs: tuple[str, ...], *, as_json: bool) -> None:
    notes = scores[DIAGNOSTICS[0]].notes or []
    for i, (ref, note) in enumerate(zip(refs, notes)):
        if note is None:
            continue
        values = {o: float(scores[o].values[i]) for o in outputs if not math.isnan(scores[o].values[i])}
        if as_json:
            print(json.dumps({"id": ref.id, "values": values, **note}, ensure_ascii=False))
        else:
            extra = "  ".join(f"{k}={note[k]}" for k in ("reason", "flag", "label") if k in note)
            print(f"{ref.id}\t{note['status']}\t{json.dumps(values)}\t{extra}")


def _rank(args: argparse.Namespace) -> int:
    from scoring.publishers.importers import write_jsonl
    from scoring.reading.problems import InvalidInput
    from scoring.reading.validation import load_references
    from scoring.specs import get_benchmark

    _load_profile_files(args)
    try:
        references = load_references(get_benchmark("dialbgm"), args.references)
    except InvalidInput as exc:
        for problem in exc.log.problems:
            print(problem, file=sys.stderr)
        return 1
    captions = read_captions(args.captions) if args.captions else None
    with build_judge(args) as judge:
        outcome = judge_rank(references.references, judge, profile=args.profile, context=args.context,
                             captions=captions)
    write_jsonl(outcome.rows, args.out)
    for item_id, reason in outcome.left_out.items():
        print(f"left out {item_id}: {reason}", file=sys.stderr)
    statuses = [r.status for r in outcome.results.values()]
    print(json.dumps({"written": len(outcome.rows), "left_out": len(outcome.left_out), "spent_usd": judge.spent_usd,
                      "statuses": {s: statuses.count(s) for s in sorted(set(statuses))}}), file=sys.stderr)
    return 1 if outcome.left_out else 0
