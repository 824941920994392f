"""Reference embeddings kept between runs, so that a benchmark's references are encoded once.

Every submission to a benchmark is matched against the same reference answers; encoding them is
about half of the BERTScore work on MusicQA-like data. :class:`EmbeddingStore` keeps the last-layer
embedding of each reference sentence in one SQLite file, keyed by sha256 over the encoder's
fingerprint and the sentence's token ids: the model's weights (the layers used), the libraries'
versions, the device type and the batching, so that any change to what computes an embedding is a
miss. A stored embedding was computed in some other pass than the one that reuses it, which moves
values by about 1e-7, within the 1e-6 that defines the official columns (bert-score on the pair
alone). Only references are stored; a candidate that is also a stored reference is read from it.

The store is a cache: an entry of the wrong shape is recomputed, the least recently used entries
are dropped above ``max_bytes``, and an unreadable or unwritable file only costs time (a warning,
then the sentences are encoded as without a store).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from scoring.versions import library_version

log = logging.getLogger(__name__)

_STORES: dict[tuple[str, int], EmbeddingStore] = {}
_STORES_LOCK = threading.Lock()
_FINGERPRINTS: dict[int, tuple[Any, str]] = {}


class EmbeddingStore:
    """Sentence embeddings (float32 ``(tokens, hidden)`` arrays) in one SQLite file, shared by the
    threads of a process; several processes may share the file."""

    def __init__(self, path: str | Path, max_bytes: int) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a lost entry after a crash is only recomputed
        self._db.execute("CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, rows INTEGER NOT NULL, "
                         "cols INTEGER NOT NULL, data BLOB NOT NULL, used REAL NOT NULL)")
        self._db.execute("CREATE INDEX IF NOT EXISTS embeddings_used ON embeddings (used)")

    def load(self, keys: dict[str, tuple[int, int]]) -> dict[str, Any]:
        """The stored embeddings (CPU tensors) of the keys whose entry has the expected ``(rows, cols)``."""
        import torch

        found: dict[str, Any] = {}
        names = list(keys)
        with self._lock:
            for start in range(0, len(names), 500):
                part = names[start : start + 500]
                marks = ",".join("?" * len(part))
                for key, rows, cols, data in self._db.execute(
                    f"SELECT key, rows, cols, data FROM embeddings WHERE key IN ({marks})", part
                ):
                    if (rows, cols) == keys[key] and len(data) == rows * cols * 4:
                        found[key] = torch.frombuffer(bytearray(data), dtype=torch.float32).view(rows, cols)
            if found:
                now = time.time()
                self._db.executemany("UPDATE embeddings SET used = ? WHERE key = ?", [(now, k) for k in found])
            self.hits += len(found)
            self.misses += len(keys) - len(found)
        return found

    def save(self, embeddings: dict[str, Any]) -> None:
        """Store ``key -> (rows, cols)`` float tensors; then drop the least recently used entries above the bound."""
        if not embeddings:
            return
        now = time.time()
        rows = []
        for key, tensor in embeddings.items():
            array = tensor.detach().to("cpu", dtype=_float32()).contiguous().numpy()
            rows.append((key, array.shape[0], array.shape[1], array.tobytes(), now))
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?, ?)", rows)
                self._evict()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def size_bytes(self) -> int:
        with self._lock:
            total: int | None = self._db.execute("SELECT SUM(rows * cols * 4) FROM embeddings").fetchone()[0]
        return total or 0

    def __len__(self) -> int:
        with self._lock:
            count: int = self._db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        return count

    def _evict(self) -> None:
        total = self._db.execute("SELECT SUM(rows * cols * 4) FROM embeddings").fetchone()[0] or 0
        if total <= self.max_bytes:
            return
        target = total - self.max_bytes * 0.9  # room for the next chunk's entries
        freed = 0
        doomed = []
        for key, size in self._db.execute("SELECT key, rows * cols * 4 FROM embeddings ORDER BY used"):
            doomed.append((key,))
            freed += size
            if freed >= target:
                break
        self._db.executemany("DELETE FROM embeddings WHERE key = ?", doomed)


def _float32() -> Any:
    import torch

    return torch.float32


def open_store(path: str, max_mb: int) -> EmbeddingStore | None:
    """The process-wide store at ``path`` (opened on first use), or None with a warning when it cannot be opened."""
    key = (str(Path(path).expanduser()), max_mb)
    with _STORES_LOCK:
        if key not in _STORES:
            try:
                _STORES[key] = EmbeddingStore(key[0], max_mb * 1024 * 1024)
            except (OSError, sqlite3.Error) as exc:
                log.warning("BERTScore embedding store %s unavailable (%s): encoding every sentence", path, exc)
                return None
        return _STORES[key]


def encoder_fingerprint(model: Any, batching: str) -> str:
    """sha256 over the encoder's weights (the layers it keeps), its class and configuration, the libraries that
    compute it, the device type and the batching; computed once per model object."""
    import torch

    cached = _FINGERPRINTS.get(id(model))
    if cached is not None and cached[0] is model:
        return cached[1]
    digest = hashlib.sha256()
    device = next(model.parameters()).device
    digest.update(json.dumps({
        "class": type(model).__name__,
        "config": model.config.to_diff_dict(),
        "layers": len(model.encoder.layer) if hasattr(model, "encoder") else None,
        "torch": torch.__version__,
        "transformers": library_version("transformers"),
        "bert-score": library_version("bert-score"),
        "device": device.type,
        "batching": batching,
    }, sort_keys=True, default=str).encode())
    with torch.inference_mode():
        for name, tensor in model.state_dict().items():
            digest.update(name.encode())
            digest.update(tensor.detach().to("cpu").contiguous().reshape(-1).view(torch.uint8).numpy().tobytes())
    fingerprint = digest.hexdigest()
    _FINGERPRINTS[id(model)] = (model, fingerprint)
    return fingerprint


def encode_with_store(
    store: EmbeddingStore | None,
    fingerprint: str,
    tokens: dict[str, list[int]],
    keep: Collection[str],
    hidden_size: int,
    device: Any,
    encode: Callable[[dict[str, list[int]]], dict[str, Any]],
) -> dict[str, Any]:
    """Last-layer embeddings of every sentence of ``tokens``: from the store where it has them, the rest from
    ``encode``; the newly encoded sentences of ``keep`` (the references) are stored."""
    if store is None:
        return encode(tokens)
    keys = {s: _entry_key(fingerprint, ids) for s, ids in tokens.items()}
    try:
        stored = store.load({keys[s]: (len(tokens[s]), hidden_size) for s in keys})
    except sqlite3.Error as exc:
        log.warning("BERTScore embedding store %s unreadable (%s): encoding every sentence", store.path, exc)
        return encode(tokens)
    found = {s: stored[keys[s]].to(device) for s in keys if keys[s] in stored}
    todo = {s: t for s, t in tokens.items() if s not in found}
    embeddings = encode(todo) if todo else {}
    try:
        store.save({keys[s]: embeddings[s] for s in keep if s in embeddings})
    except sqlite3.Error as exc:
        log.warning("BERTScore embedding store %s not written (%s)", store.path, exc)
    embeddings.update(found)
    return embeddings


def _entry_key(fingerprint: str, ids: list[int]) -> str:
    return hashlib.sha256(f"{fingerprint}:{','.join(map(str, ids))}".encode()).hexdigest()
