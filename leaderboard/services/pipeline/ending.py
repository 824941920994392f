"""One e-mail to a submission's owner when it ends (scored, invalid or failed), if the owner opted in.

Called inside the transaction that stores the final status: the ``end_mail_sent`` mark commits with
that status, so a retried step finds it set and sends nothing; the mail itself goes on commit.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse

from leaderboard.models import AccountSettings, Submission

log = logging.getLogger(__name__)


def submission_end_mail(submission_id: int) -> bool:
    """Mark the end mail sent and send it on commit; False when the owner did not opt in or it was sent."""
    submission = Submission.objects.select_related("user", "split__benchmark").get(pk=submission_id)
    opted_in = AccountSettings.objects.filter(user_id=submission.user_id, email_on_end=True).exists()
    if not opted_in or not submission.user.email:
        return False
    if not Submission.objects.filter(pk=submission_id, end_mail_sent=False).update(end_mail_sent=True):
        return False
    transaction.on_commit(lambda: _send(submission_id))
    return True


def _send(submission_id: int) -> None:
    submission = Submission.objects.select_related("user", "split__benchmark").get(pk=submission_id)
    subject = f"{submission.model_name} on {submission.split}: {submission.get_status_display().lower()}"
    body = (f"Your submission {submission.model_name} on {submission.split} ended: "
            f"{submission.get_status_display()}.\n\n{submission.status_detail}\n\n"
            f"{settings.SITE_URL.rstrip('/')}{reverse('submission', args=[submission.uid])}\n")
    try:
        send_mail(subject, body, None, [submission.user.email])
    except OSError:  # a mail server down must not fail the submission
        log.exception("submission %s: the end mail could not be sent", submission_id)
