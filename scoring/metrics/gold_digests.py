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
_UNKEYED = re.compile(r"(?:(?<=^)|(?<=\|))(?:gold:([0-9a-f]{16})|labels:\d+:([0-9a-f]{12}))(?=\||$)")


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
    return _UNKEYED.sub(lambda m: f"gold:{gold_keyed(m[1], key)}" if m[1] else f"labels:{gold_keyed(m[2], key)}",
                        signature)
