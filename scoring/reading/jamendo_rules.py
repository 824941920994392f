"""Jamendo-MT-QA evaluate.py's text rules, shared by the contract (validation) and the metrics.

normalise = lowercase, strip, collapse whitespace. A yes/no answer is "yes" if it starts with
"yes" or equals "true", "no" if it starts with "no" or equals "false" (gold labels without
true/false).
"""

from __future__ import annotations

import re

_SPACES = re.compile(r"\s+")


def normalize(text: str | None) -> str:
    """evaluate.py's normalisation: lowercase, stripped, whitespace runs as one space."""
    return _SPACES.sub(" ", (text or "").strip().lower())


def yes_no_label(text: str, *, accept_true_false: bool = True) -> str | None:
    """"yes", "no" or ``None`` for ``text`` read as evaluate.py reads a yes/no answer."""
    norm = normalize(text)
    if norm.startswith("yes") or (accept_true_false and norm == "true"):
        return "yes"
    if norm.startswith("no") or (accept_true_false and norm == "false"):
        return "no"
    return None
