"""The scorer the site uses: the same ``scoring`` engine and options as the CLI defaults."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from django.conf import settings
from django.utils.crypto import salted_hmac

from leaderboard.models import Submission
from leaderboard.services.shared.split_references import split_references
from scoring import Scorer, ScoringOptions, build_scorer
from scoring.metrics import ScoringContext
from scoring.metrics.bertscore import BertScoreConfig
from scoring.metrics.gold_digests import signature_gold_keyed


def scoring_options(profile: str | None = None) -> ScoringOptions:
    """CLI defaults (seed 0, 1,000 bootstrap replicates), BERTScore per settings."""
    return ScoringOptions(
        profile=profile or None,
        bertscore=settings.LEADERBOARD["BERTSCORE"],
        bertscore_store=settings.LEADERBOARD["BERTSCORE_STORE"],
        n_bootstrap=settings.LEADERBOARD["BOOTSTRAP_REPLICATES"],
        chunk_size=settings.LEADERBOARD["SCORING_CHUNK_SIZE"],
    )


@lru_cache(maxsize=1)
def _bertscore_config() -> BertScoreConfig | None:
    config = scoring_options().bertscore_config()
    return replace(config, store_mb=settings.LEADERBOARD["BERTSCORE_STORE_MB"]) if config else None


def site_context(submission: Submission | None = None) -> ScoringContext:
    """Run-time resources for scoring on this site (the BERTScore model, judges with the
    submission's remaining budget; on a hidden-label split the key of label digests in signatures)."""
    from leaderboard.services.shared.judges import configured_judges

    judges, serves = configured_judges(submission)
    hidden = submission is not None and submission.split.hidden_labels
    return ScoringContext(bertscore=_bertscore_config(), judges=judges, judge_serves=serves,
                          label_key=scorer_label_key() if hidden else None)


def scorer_label_key() -> bytes:
    """The server's secret for digests of hidden labels in signatures (``SIGNATURE_SECRET``, else ``SECRET_KEY``)."""
    secret = settings.LEADERBOARD["SIGNATURE_SECRET"] or settings.SECRET_KEY
    return salted_hmac("leaderboard.signatures.labels", "gold", secret=secret, algorithm="sha256").digest()


def signatures_keyed(signatures: dict[str, str]) -> dict[str, str]:
    """Signatures of a hidden-label split with every unkeyed label digest keyed with :func:`scorer_label_key`
    (each family keys its own when scoring; this also keys what was stored before the labels were hidden)."""
    key = scorer_label_key()
    return {name: signature_gold_keyed(signature, key) for name, signature in signatures.items()}


def site_scorer(submission: Submission) -> Scorer:
    references = split_references(submission.split)
    return build_scorer(
        submission.split.spec,
        references.references,
        scoring_options(submission.profile),
        context=site_context(submission),
    )
