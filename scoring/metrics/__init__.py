"""The metric registry: family name -> :class:`MetricFamily` subclass.

Families are looked up by name from benchmark specs; an unknown name raises a
``KeyError`` that lists the valid ones. Heavy libraries (torch, bert-score)
are imported only when a family that needs them runs.
"""

from __future__ import annotations

from scoring.judge.family import JudgeMetrics
from scoring.judge.mapping import MappedChoice
from scoring.metrics.base import ItemScores, MetricFamily, ScoringContext, weighted_nanmean
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
from scoring.metrics.hf_evaluate import EvaluateBleu, EvaluateMeteor
from scoring.metrics.leave_one_out import LeaveOneOut
from scoring.metrics.mcq import MultipleChoice
from scoring.metrics.meteor import Meteor
from scoring.metrics.ranking import RankingMetrics
from scoring.metrics.rouge import Rouge
from scoring.metrics.songform import SongForm
from scoring.metrics.tag_set import TagSetF1

METRIC_FAMILIES: dict[str, type[MetricFamily]] = {
    family.name: family
    for family in (RankingMetrics, SentenceBleu, CorpusBleu, Rouge, BertScore, YesNoAccuracy, ShortAnswerAccuracy,
                   MultipleChoice, LeaveOneOut, CmiLabelAccuracy, CmiEmotionR2, CmiLyricsErrorRates)
}


def register_family(family: type[MetricFamily]) -> type[MetricFamily]:
    """Add a family to the registry (usable as a class decorator)."""
    if family.name in METRIC_FAMILIES and METRIC_FAMILIES[family.name] is not family:
        raise ValueError(f"metric family {family.name!r} is already registered")
    METRIC_FAMILIES[family.name] = family
    return family


register_family(JudgeMetrics)
register_family(MappedChoice)
for _family in (CmiBeat, CmiGuzheng, Meteor):
    register_family(_family)
register_family(CmiKey)
register_family(EvaluateBleu)
register_family(EvaluateMeteor)
register_family(CmiTagAuc)
register_family(TagSetF1)
register_family(SongForm)


def get_family(name: str) -> type[MetricFamily]:
    try:
        return METRIC_FAMILIES[name]
    except KeyError:
        valid = ", ".join(sorted(METRIC_FAMILIES))
        raise KeyError(f"unknown metric family {name!r}; valid: {valid}") from None


__all__ = [
    "METRIC_FAMILIES",
    "ItemScores",
    "MetricFamily",
    "ScoringContext",
    "get_family",
    "register_family",
    "weighted_nanmean",
]
