"""The metric families: importing this package registers every family of ``scoring/metrics``.

Each family registers itself with ``@register_family`` in its own module (the registry is
:data:`METRIC_FAMILIES` in :mod:`scoring.metrics.base`); the judged families (``judge``, ``mcq_mapped``)
register themselves in ``scoring.judge``, which ``scoring`` imports, so this package never imports the
judge. Families are looked up by name from benchmark specs; an unknown name raises a ``KeyError`` that
lists the valid ones. Heavy libraries (torch, bert-score) are imported only when a family that needs them runs.
"""

from __future__ import annotations

from scoring.metrics.base import (
    METRIC_FAMILIES,
    ItemScores,
    MetricFamily,
    ScoringContext,
    get_family,
    register_family,
    weighted_nanmean,
)
from scoring.metrics.bertscore import BertScore
from scoring.metrics.bleu import CorpusBleu, SentenceBleu
from scoring.metrics.cmi_beat import CmiBeat
from scoring.metrics.cmi_classification import CmiLabelAccuracy
from scoring.metrics.cmi_emotion import CmiEmotionR2
from scoring.metrics.cmi_guzheng import CmiGuzheng
from scoring.metrics.cmi_key import CmiKey
from scoring.metrics.cmi_lyrics import CmiLyricsErrorRates
from scoring.metrics.cmi_tagging import CmiTagAuc
from scoring.metrics.comparative import ShortAnswerAccuracy, YesNoAccuracy
from scoring.metrics.exact_pitch import ExactPitch
from scoring.metrics.hf_evaluate import EvaluateBleu, EvaluateMeteor
from scoring.metrics.leave_one_out import LeaveOneOut
from scoring.metrics.mcq import MultipleChoice
from scoring.metrics.meteor import Meteor
from scoring.metrics.ranking import RankingMetrics
from scoring.metrics.rouge import Rouge
from scoring.metrics.songform import SongForm
from scoring.metrics.tag_set import TagSetF1

__all__ = [
    "METRIC_FAMILIES",
    "BertScore",
    "CmiBeat",
    "CmiEmotionR2",
    "CmiGuzheng",
    "CmiKey",
    "CmiLabelAccuracy",
    "CmiLyricsErrorRates",
    "CmiTagAuc",
    "CorpusBleu",
    "EvaluateBleu",
    "EvaluateMeteor",
    "ExactPitch",
    "ItemScores",
    "LeaveOneOut",
    "Meteor",
    "MetricFamily",
    "MultipleChoice",
    "RankingMetrics",
    "Rouge",
    "ScoringContext",
    "SentenceBleu",
    "ShortAnswerAccuracy",
    "SongForm",
    "TagSetF1",
    "YesNoAccuracy",
    "get_family",
    "register_family",
    "weighted_nanmean",
]
