"""Who may do and see what: access, hidden-label disclosure, submission fields, quotas and rate limits, accounts
and logins, owners' controls, the one refusal type.
"""
