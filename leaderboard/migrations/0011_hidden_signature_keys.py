"""Key the label digests stored in hidden-label splits' signatures (see services.signatures)."""

import hashlib
import hmac
import re
from typing import Any

from django.conf import settings
from django.db import migrations
from django.utils.crypto import salted_hmac

# frozen copies of the keying as it was when this migration was written (a migration never imports live code)
_UNKEYED = re.compile(r"(?:(?<=^)|(?<=\|))(?:gold:([0-9a-f]{16})|labels:\d+:([0-9a-f]{12}))(?=\||$)")


def _gold_keyed(digest: str, key: bytes) -> str:
    return "hmac-" + hmac.new(key, digest.encode(), hashlib.sha256).hexdigest()[:16]


def signature_gold_keyed(signature: str, key: bytes) -> str:
    return _UNKEYED.sub(lambda m: f"gold:{_gold_keyed(m[1], key)}" if m[1] else f"labels:{_gold_keyed(m[2], key)}",
                        signature)


def scorer_label_key() -> bytes:
    secret = settings.LEADERBOARD["SIGNATURE_SECRET"] or settings.SECRET_KEY
    return salted_hmac("leaderboard.signatures.labels", "gold", secret=secret, algorithm="sha256").digest()


def rekey(apps: Any, schema_editor: Any) -> None:
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
