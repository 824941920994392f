"""One model, one identity: the names entries and papers' rows give a model, folded to the one its page goes by.

Case, spacing and punctuation are folded (``"GPT-4o-Audio"`` and ``"gpt 4o audio"`` are one model); spellings
folding misses are listed in ``leaderboard/baselines/model_aliases.toml``. Boards, model pages, model search and
``/api/v1/models`` group rows by this identity, so a model holds one rank in one view and one page.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from functools import lru_cache
from pathlib import Path

ALIASES_FILE = Path(__file__).resolve().parents[2] / "baselines" / "model_aliases.toml"
_SLUG_JUNK = re.compile(r"[^\w.+]+")


def model_slug(name: str) -> str:
    """A model's URL name: its identity (see the module), folded for URLs."""
    return _aliases().get(_folded(name), _folded(name)) or "model-" + hashlib.sha256(name.encode()).hexdigest()[:10]


def _folded(name: str) -> str:
    return _SLUG_JUNK.sub("-", " ".join(name.split()).casefold()).strip("-")


@lru_cache(maxsize=1)
def _aliases() -> dict[str, str]:
    table = tomllib.loads(ALIASES_FILE.read_text(encoding="utf-8"))
    return {_folded(spelling): _folded(name) for spelling, name in table.items()}
