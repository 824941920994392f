"""Neutralise stored rows a page must not render: non-http(s) links and bidirectional controls.

A ``paper_url``/``code_url`` that is not an http(s) URL (``javascript:...``) is cleared;
bidirectional embedding/override/isolate characters are removed from names and descriptions.
"""

import re

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import migrations

# frozen copies of the rules as they were when this migration was written (a migration never imports live code)
_TEXT_FIELDS = ("model_name", "organisation", "description")
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
_URL_VALIDATOR = URLValidator(schemes=["http", "https"])


def text_without_bidi(value):
    return _BIDI_CONTROLS.sub("", value)


def url_is_safe(value):
    if not value or len(value) > 200:
        return False
    try:
        _URL_VALIDATOR(value)
    except ValidationError:
        return False
    return True


def neutralise(apps, schema_editor):
    Submission = apps.get_model("leaderboard", "Submission")
    for submission in Submission.objects.only("pk", "paper_url", "code_url", *_TEXT_FIELDS).iterator():
        changed = {}
        for name in ("paper_url", "code_url"):
            value = getattr(submission, name)
            if value and not url_is_safe(value):
                changed[name] = ""
        for name in _TEXT_FIELDS:
            value = getattr(submission, name)
            if text_without_bidi(value) != value:
                changed[name] = text_without_bidi(value)
        if changed:
            Submission.objects.filter(pk=submission.pk).update(**changed)


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0002_submission_warnings")]

    operations = [migrations.RunPython(neutralise, migrations.RunPython.noop)]
