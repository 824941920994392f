"""The starter kit's documented placeholder draw, written out on its own: ``random.Random`` seeded by the first
8 bytes (big-endian) of SHA-256 of ``"kit-sample-v1:<item id>"``."""

from __future__ import annotations

import hashlib
import random


def seeded(item_id: str) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(f"kit-sample-v1:{item_id}".encode()).digest()[:8], "big"))
