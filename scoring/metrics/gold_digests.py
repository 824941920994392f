"""Digests that name a reference version in signatures, keyed on hidden-label splits.

An unkeyed digest of hidden gold labels is a test anyone can run against guesses (ten yes/no items
are 1,024 guesses), so where the labels are hidden each family keys its digest with a secret
(``ScoringContext.label_key``), and :func:`signature_gold_keyed` keys digests stored before.
"""

from __future__ import annotations

import hashlib
import hmac
import re

KEYED_PREFIX = "hmac-"
# gold:<16 hex> (multiple choice, leave-one-out); labels:<count>:<12 hex> (CMI-Bench's label set)
_UNKEYED = re.compile(r"(?:(?<=^)|(?<=\|))(gold:|labels:\d+:)([0-9a-f]{16}|[0-9a-f]{12})(?=\||$)")


def gold_keyed(digest: str, key: bytes) -> str:
    """A gold digest keyed with a secret: the version of hidden labels, unmatchable to guesses.

    Applied to the digest (not the labels) so that stored signatures can be keyed without the labels.
    """
    return KEYED_PREFIX + hmac.new(key, digest.encode(), hashlib.sha256).hexdigest()[:16]


def gold_named(digest: str, key: bytes | None) -> str:
    """``digest`` as a signature names it: keyed when there is a ``key`` (hidden labels), else as it is."""
    return gold_keyed(digest, key) if key else digest


def signature_gold_keyed(signature: str, key: bytes) -> str:
    """``signature`` with each unkeyed label digest keyed (``gold:…``, ``labels:<n>:…``); else unchanged."""

    def keyed(match: re.Match[str]) -> str:
        field, digest = match[1], match[2]
        if field == "gold:" and len(digest) == 16:
            return field + gold_keyed(digest, key)
        if field.startswith("labels:") and len(digest) == 12:
            return "labels:" + gold_keyed(digest, key)
        return match[0]

    return _UNKEYED.sub(keyed, signature)
