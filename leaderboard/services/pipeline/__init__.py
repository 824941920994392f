"""Submissions from upload to aggregate: validation and scoring steps, heavy (BERTScore) chunks, leases, the
sweeper's stalls, stored files and their retention, the one door to Celery.
"""
