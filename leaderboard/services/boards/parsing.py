"""Parse rates: how many of an entry's answers the publisher's own parser could not map to one option or value.

The count is the ``unparsed`` diagnostic of the entry's report (``scoring.parsing``: computed by the code that
scores), summed over runs. The board shows it in a column of its own (never ranked), the API in each entry's
``parsing``, the entry page beside the protocol its values are under. On a hidden-label split it is a diagnostic,
for maintainers only (``services.policy.disclosure``); the per-item status may still reach the entry's owner in the
explorer where it is a function of the answers and the public inputs alone (``ParseRule.reads_labels`` false).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from leaderboard.models import PublishedResult, Split, Submission
from leaderboard.services.policy.disclosure import DIAGNOSTICS_WITHHELD
from scoring import BenchmarkSpec
from scoring.parsing import ParseRule, profile_parse_rule
from scoring.specs import get_benchmark

NOT_COUNTED = "scored before parse counts were kept; re-scoring counts them (no value moves)"


def parsing_rule(spec: BenchmarkSpec, profile: str | None = None) -> ParseRule | None:
    """The parser of ``spec``'s profile (the official one by default); None for a benchmark without one."""
    return _rule(spec.name, profile or spec.official_profile)


@lru_cache(maxsize=256)
def _rule(benchmark: str, profile: str) -> ParseRule | None:
    return profile_parse_rule(get_benchmark(benchmark).profile(profile))


def parsing_summary(unparsed: Any, n_items: Any) -> dict[str, Any] | None:
    """``{"unparsed", "answers", "parsed", "per_run"}`` from a report's ``diagnostics["unparsed"]`` (a count per run)
    and ``n_items``: answers not parsed over all runs' answers, and the parsed share (0-1); None without them."""
    if not isinstance(unparsed, list) or not unparsed or not isinstance(n_items, int) or n_items <= 0:
        return None
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in unparsed):
        return None
    answers = n_items * len(unparsed)
    return {"unparsed": sum(unparsed), "answers": answers, "parsed": 1 - sum(unparsed) / answers,
            "per_run": list(unparsed)}


def submission_parsing(submission: Submission) -> dict[str, Any] | None:
    """:func:`parsing_summary` of a scored entry's stored report."""
    report = submission.report or {}
    return parsing_summary((report.get("diagnostics") or {}).get("unparsed"), report.get("n_items"))


def submission_parsing_shown(submission: Submission, *, hidden: bool) -> dict[str, Any] | None:
    """The entry's parse count as a viewer may see it: None without a parser (or before counts were kept),
    ``{"withheld": ...}`` where the split's numbers are released at a bounded precision (``hidden``)."""
    if parsing_rule(submission.split.spec, submission.profile or None) is None:
        return None
    return {"withheld": DIAGNOSTICS_WITHHELD} if hidden else submission_parsing(submission)


def parsed_percent(summary: Mapping[str, Any]) -> str:
    """``97.1%``: never 100% while an answer is not parsed, never 0% while one is."""
    if summary["unparsed"] == 0:
        return "100%"
    if summary["unparsed"] == summary["answers"]:
        return "0%"
    return f"{min(max(100 * summary['parsed'], 0.1), 99.9):.1f}%"


def unparsed_text(summary: Mapping[str, Any]) -> str:
    """``29 of 1,000 answers not parsed`` (``... answers of 2 runs ...`` for several runs)."""
    runs = len(summary["per_run"])
    answers = f"{summary['answers']:,} answers" + (f" of {runs} runs" if runs > 1 else "")
    return f"{summary['unparsed']:,} of {answers} not parsed"


def parsing_protocol(split: Split, profile: str | None, summary: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The entry page's line: which protocol the values are under, and what the parse count (``summary``, as
    :func:`submission_parsing_shown` gives it) means next to numbers the split's published tables measured with an
    answer parser (their ``protocol.parser``); None without a parser."""
    spec = split.spec
    rule = parsing_rule(spec, profile)
    if rule is None:
        return None
    others = _published_parsers(split)
    line = (f"Values under the {profile or spec.official_profile} profile: the publisher's released parser, with no "
            f"answer mapping before it. Not parsed: {rule.rule}.")
    if summary is not None and "withheld" in summary:
        line += f" The count is withheld: {summary['withheld']}."
    elif summary is not None:
        line += f" {unparsed_text(summary).capitalize()} ({parsed_percent(summary)} parsed)"
        line += ", each scored as the publisher's script scores it." if summary["unparsed"] else "."
    if others:
        named = "; ".join(f"{parser} ({', '.join(papers)})" for parser, papers in others.items())
        line += (f" Numbers published with an answer parser first ({named}) may credit answers this parser does not "
                 "read, so they are another protocol: not comparable with these values, and shown apart on the board.")
    return {"rule": rule.rule, "line": line, "other_parsers": list(others)}


def _published_parsers(split: Split) -> dict[str, list[str]]:
    """Answer parsers other than none that the split's published tables declare, each with its papers' short names."""
    found: dict[str, list[str]] = {}
    for paper, columns in PublishedResult.objects.filter(split=split).values_list("paper", "columns"):
        for parser in _parsers(columns):
            papers = found.setdefault(parser, [])
            short = str(paper).split(",", 1)[0]
            if short not in papers:
                papers.append(short)
    return found


def _parsers(columns: Sequence[Any]) -> set[str]:
    declared = [c.get("protocol") for c in columns if isinstance(c, Mapping)]
    return {str(p["parser"]) for p in declared if isinstance(p, Mapping) and p.get("parser") not in (None, "", "none")}
