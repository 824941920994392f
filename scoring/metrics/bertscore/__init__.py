"""BERTScore: the family and its configuration (:mod:`.family`), the packed CPU batching (:mod:`.packed`) on
weights read from the checkpoint (:mod:`.weights`), the masked accelerator batching (:mod:`.masked`) and the
reference-embedding store (:mod:`.store`). What the columns are: CARD.md."""

from scoring.metrics.bertscore.family import (
    BATCH_HEIGHT,
    BATCHINGS,
    DEFAULT_MODEL_NAME,
    FAMILY_BATCHINGS,
    OUTPUTS,
    STORE_MB,
    BertScore,
    BertScoreConfig,
    BertScoreUnavailable,
    bert_score_batched,
    encode_empty_as_bert_score_does,
    load_scorer,
    model_fields,
    picked_device,
    resolved_batching,
    scorer_for,
    unpadded_scores,
)

__all__ = [
    "BATCHINGS",
    "BATCH_HEIGHT",
    "DEFAULT_MODEL_NAME",
    "FAMILY_BATCHINGS",
    "OUTPUTS",
    "STORE_MB",
    "BertScore",
    "BertScoreConfig",
    "BertScoreUnavailable",
    "bert_score_batched",
    "encode_empty_as_bert_score_does",
    "load_scorer",
    "model_fields",
    "picked_device",
    "resolved_batching",
    "scorer_for",
    "unpadded_scores",
]
