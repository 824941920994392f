"""A profile's answer parser: what its ``unparsed`` diagnostic counts and whether that count reads the labels.

Benchmarks whose publisher maps free-form answers onto options or values (multiple choice, CMI-Bench's labels,
ratings, beat times and technique events) report per item whether the publisher's own parser could map the answer
(:data:`scoring.metrics.base.UNPARSED`). Free-text metrics (BLEU, WER, BERTScore) have no parser.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.metrics import get_family
from scoring.specs import Profile


@dataclass(frozen=True)
class ParseRule:
    rule: str  # what counts as unparsed, in one sentence
    reads_labels: bool  # the count depends on the references (a hidden split's gold), not only on the answers


def profile_parse_rule(profile: Profile) -> ParseRule | None:
    """The parser of the family whose ``unparsed`` diagnostic the profile reports; None when it has none."""
    for metric in profile.metrics:
        family = get_family(metric.family)
        rule = family.parse_rule(metric.params)
        if rule is not None:
            return ParseRule(rule, family.parse_reads_labels)
    return None
