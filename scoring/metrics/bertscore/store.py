"""Reference embeddings kept between runs, so that a benchmark's references are encoded once.

Every submission to a benchmark is matched against the same reference answers; encoding them is
about half of the BERTScore work on MusicQA-like data. :class:`EmbeddingStore` keeps the last-layer
embedding of each reference sentence in one SQLite file on the worker's own disk (WAL mode: not on a
network share), keyed by sha256 over the encoder's fingerprint and the sentence's token ids: the
model's weights (the layers used), the libraries' versions, the source of this package's encoders,
the device type and the batching, so that any change to what computes an embedding is a miss. A
stored embedding was computed in some other pass than the one that reuses it, which moves values by
about 1e-7, within the 1e-6 that defines the official columns (bert-score on the pair
alone). Only a run's references are stored and looked up: a prediction is always encoded, so that
neither the time nor the values of a run depend on what other benchmarks' (hidden) references hold.

The store is a cache: an entry of the wrong shape or checksum is recomputed, the least recently used
entries are dropped above ``max_bytes``, a file that is not a database is moved aside, and any other
failure (a lock held too long, a full disk) only costs time: a warning, the sentences encoded as
without a store, and the store left alone for ``BACKOFF_SECONDS`` in this process.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from scoring.versions import library_version

log = logging.getLogger(__name__)

BACKOFF_SECONDS = 300.0  # a store that failed is left alone this long (a held lock, a full disk)
BUSY_SECONDS = 5.0  # how long a write waits for another process's write
WAL_LIMIT_BYTES = 64 * 1024 * 1024  # the write-ahead log is truncated to this after each checkpoint
# their source is part of the fingerprint
ENCODER_MODULES = ("forward.py", "packed.py", "masked.py", "weights.py")

_STORES: dict[tuple[str, int], EmbeddingStore] = {}
_FAILED: dict[tuple[str, int], float] = {}
_STORES_LOCK = threading.Lock()
_FINGERPRINTS: dict[tuple[int, str], tuple[Any, str]] = {}


class EmbeddingStore:
    """Sentence embeddings (float32 ``(tokens, hidden)`` arrays) in one SQLite file, shared by the
    threads of a process and by the processes of one host."""

    def __init__(self, path: str | Path, max_bytes: int) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._clock = 0.0
        self._off_until = 0.0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=BUSY_SECONDS)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a lost entry after a crash is only recomputed
        self._db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
        self._db.execute("CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, rows INTEGER NOT NULL, "
                         "cols INTEGER NOT NULL, crc INTEGER NOT NULL, data BLOB NOT NULL)")
        # when each entry was last used, apart from the embeddings so that a hit rewrites a few bytes, not the entry
        self._db.execute("CREATE TABLE IF NOT EXISTS usage (key TEXT PRIMARY KEY, used REAL NOT NULL)")
        self._db.execute("CREATE INDEX IF NOT EXISTS usage_used ON usage (used)")

    @property
    def resting(self) -> bool:
        """Whether the store is being left alone after a failure (:data:`BACKOFF_SECONDS`)."""
        return time.monotonic() < self._off_until

    def rest(self) -> None:
        self._off_until = time.monotonic() + BACKOFF_SECONDS

    def load(self, keys: dict[str, tuple[int, int]]) -> dict[str, Any]:
        """The stored embeddings (CPU tensors) of the keys whose entry has the expected ``(rows, cols)`` and CRC."""
        import torch

        found: dict[str, Any] = {}
        names = list(keys)
        with self._lock:
            self._end_abandoned_transaction()
            for start in range(0, len(names), 500):
                part = names[start : start + 500]
                marks = ",".join("?" * len(part))
                for key, rows, cols, crc, data in self._db.execute(
                    f"SELECT key, rows, cols, crc, data FROM embeddings WHERE key IN ({marks})", part
                ):
                    if (rows, cols) == keys[key] and len(data) == rows * cols * 4 and zlib.crc32(data) == crc:
                        found[key] = (torch.frombuffer(bytearray(data), dtype=torch.float32).view(rows, cols)
                                      if data else torch.empty(rows, cols))
            if found:
                now = self._now()
                self._db.executemany("INSERT OR REPLACE INTO usage VALUES (?, ?)", [(k, now) for k in found])
            self.hits += len(found)
            self.misses += len(keys) - len(found)
        return found

    def save(self, embeddings: dict[str, Any]) -> None:
        """Store ``key -> (rows, cols)`` float tensors; then drop the least recently used entries above the bound."""
        import torch

        rows = []
        for key, tensor in embeddings.items():
            data = tensor.detach().to("cpu", dtype=torch.float32).contiguous().numpy().tobytes()
            rows.append((key, tensor.shape[0], tensor.shape[1], zlib.crc32(data), data))
        if not rows:
            return
        with self._lock:
            self._end_abandoned_transaction()
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?, ?)", rows)
                now = self._now()
                self._db.executemany("INSERT OR REPLACE INTO usage VALUES (?, ?)", [(row[0], now) for row in rows])
                self._evict()
                self._db.execute("COMMIT")
            except BaseException:  # a stopped task (its lease lost) too: never leave the write lock held
                self._end_abandoned_transaction()
                raise

    def size_bytes(self) -> int:
        with self._lock:
            total: int | None = self._db.execute("SELECT SUM(rows * cols * 4) FROM embeddings").fetchone()[0]
        return total or 0

    def __len__(self) -> int:
        with self._lock:
            count: int = self._db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        return count

    def _now(self) -> float:
        """Wall-clock time, strictly increasing within the process (the eviction order of one process's saves)."""
        self._clock = max(time.time(), self._clock + 1e-6)
        return self._clock

    def _end_abandoned_transaction(self) -> None:
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def _evict(self) -> None:
        total = self._db.execute("SELECT SUM(rows * cols * 4) FROM embeddings").fetchone()[0] or 0
        if total <= self.max_bytes:
            return
        target = total - self.max_bytes * 0.9  # room for the next chunk's entries
        freed = 0
        doomed = []
        for key, size in self._db.execute("SELECT e.key, e.rows * e.cols * 4 FROM embeddings e "
                                          "LEFT JOIN usage u ON u.key = e.key ORDER BY COALESCE(u.used, 0)"):
            doomed.append((key,))
            freed += size
            if freed >= target:
                break
        self._db.executemany("DELETE FROM embeddings WHERE key = ?", doomed)
        self._db.executemany("DELETE FROM usage WHERE key = ?", doomed)


def open_store(path: str, max_mb: int) -> EmbeddingStore | None:
    """The process-wide store at ``path`` (opened on first use), or None with a warning when it cannot be opened
    (tried again after :data:`BACKOFF_SECONDS`). A file that is not an SQLite database is moved aside."""
    key = (str(Path(path).expanduser()), max_mb)
    with _STORES_LOCK:
        if key in _STORES:
            return _STORES[key]
        if time.monotonic() < _FAILED.get(key, -BACKOFF_SECONDS) + BACKOFF_SECONDS:
            return None
        try:
            _STORES[key] = _open(Path(key[0]), max_mb * 1024 * 1024)
        except (OSError, sqlite3.Error) as exc:
            log.warning("BERTScore embedding store %s unavailable (%s): encoding every sentence", path, exc)
            _FAILED[key] = time.monotonic()
            return None
        return _STORES[key]


def _open(path: Path, max_bytes: int) -> EmbeddingStore:
    try:
        return EmbeddingStore(path, max_bytes)
    except sqlite3.DatabaseError as exc:
        if "not a database" not in str(exc) and "malformed" not in str(exc):
            raise
    aside = path.with_name(f"{path.name}.unreadable-{int(time.time())}")
    path.rename(aside)
    log.warning("BERTScore embedding store %s was not a database: moved to %s, starting an empty one", path, aside)
    return EmbeddingStore(path, max_bytes)


def encoder_fingerprint(model: Any, batching: str) -> str:
    """sha256 over the encoder's weights (the layers it keeps), its class and configuration, the libraries and the
    source of this package's encoders that compute it, the device type and the batching; once per model and batching.
    ``model`` is a transformers model or a :class:`~scoring.metrics.bertscore.weights.PackedEncoder` (the packed
    batching's: the same fingerprint whether it was read from the checkpoint or from a loaded model)."""
    import torch

    from scoring.metrics.bertscore.weights import PackedEncoder

    cached = _FINGERPRINTS.get((id(model), batching))
    if cached is not None and cached[0] is model:
        return cached[1]
    if isinstance(model, PackedEncoder):
        description, tensors, device = model.description(), model.named_tensors(), model.device.type
    else:
        description = {"class": type(model).__name__, "config": model.config.to_diff_dict(),
                       "layers": len(model.encoder.layer) if hasattr(model, "encoder") else None}
        tensors, device = iter(model.state_dict().items()), next(model.parameters()).device.type
    digest = hashlib.sha256()
    digest.update(json.dumps({
        **description,
        "torch": torch.__version__,
        "transformers": library_version("transformers"),
        "bert-score": library_version("bert-score"),
        "encoders": _encoder_sources(),
        "device": device,
        "batching": batching,
    }, sort_keys=True, default=str).encode())
    with torch.inference_mode():
        for name, tensor in tensors:
            digest.update(name.encode())
            digest.update(tensor.detach().to("cpu").contiguous().reshape(-1).view(torch.uint8).numpy().tobytes())
    fingerprint = digest.hexdigest()
    _FINGERPRINTS[(id(model), batching)] = (model, fingerprint)
    return fingerprint


def _encoder_sources() -> str:
    """sha256 of the modules that compute embeddings here: a change to them is a change of encoder."""
    digest = hashlib.sha256()
    for module in ENCODER_MODULES:
        digest.update((Path(__file__).parent / module).read_bytes())
    return digest.hexdigest()


def encode_with_store(
    store: EmbeddingStore | None,
    fingerprint: str,
    tokens: dict[str, list[int]],
    keep: Collection[str],
    hidden_size: int,
    device: Any,
    encode: Callable[[dict[str, list[int]]], dict[str, Any]],
) -> dict[str, Any]:
    """Last-layer embeddings of every sentence of ``tokens``: those of ``keep`` (the references) from the store
    where it has them, the rest from ``encode``; the newly encoded ``keep`` sentences are stored."""
    if store is None or store.resting:
        return encode(tokens)
    keys = {s: _entry_key(fingerprint, tokens[s]) for s in keep}
    try:
        stored = store.load({keys[s]: (len(tokens[s]), hidden_size) for s in keys})
    except Exception as exc:  # a cache: any failure only costs the encoding
        _unusable(store, "unreadable", exc)
        return encode(tokens)
    found = {s: stored[keys[s]].to(device) for s in keys if keys[s] in stored}
    todo = {s: t for s, t in tokens.items() if s not in found}
    embeddings = encode(todo) if todo else {}
    try:
        store.save({keys[s]: embeddings[s] for s in keys if s in embeddings})
    except Exception as exc:
        _unusable(store, "not written", exc)
    embeddings.update(found)
    return embeddings


def _unusable(store: EmbeddingStore, what: str, exc: Exception) -> None:
    store.rest()
    log.warning("BERTScore embedding store %s %s (%s): encoding every sentence for %.0f s", store.path, what, exc,
                BACKOFF_SECONDS)


def _entry_key(fingerprint: str, ids: list[int]) -> str:
    return hashlib.sha256(f"{fingerprint}:{','.join(map(str, ids))}".encode()).hexdigest()
