"""Submissions from upload to aggregate: validation and scoring steps, heavy (BERTScore) chunks, leases, the
sweeper's stalls, stored files' retention, an entry's per-item arrays and its judge audit as aggregation stores them.
"""
