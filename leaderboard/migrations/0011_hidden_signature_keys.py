"""Key the label digests stored in hidden-label splits' signatures (see services.signatures)."""

from typing import Any

from django.db import migrations


def rekey(apps: Any, schema_editor: Any) -> None:
    from leaderboard.services.pipeline.scorers import scorer_label_key
    from scoring.metrics.gold_digests import signature_gold_keyed

    key = scorer_label_key()
    metric_value = apps.get_model("leaderboard", "MetricValue")
    submission = apps.get_model("leaderboard", "Submission")
    for value in metric_value.objects.filter(submission__split__hidden_labels=True, signature__contains="gold:"):
        keyed = signature_gold_keyed(value.signature, key)
        if keyed != value.signature:
            value.signature = keyed
            value.save(update_fields=["signature"])
    for entry in submission.objects.filter(split__hidden_labels=True, report__has_key="signatures"):
        signatures = entry.report["signatures"]
        keyed_all = {k: signature_gold_keyed(v, key) for k, v in signatures.items()}
        if keyed_all != signatures:
            entry.report = {**entry.report, "signatures": keyed_all}
            entry.save(update_fields=["report"])


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0010_heavy_queue")]
    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
