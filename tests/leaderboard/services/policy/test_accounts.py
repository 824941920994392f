"""Sign-up with a verified email and limits, login throttling, password rules and reset."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from tests.helpers.limits import FROZEN, assert_retry, at_unix, freeze, window_end

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-and-unusual-passphrase-42"


def _client() -> Client:
    """A client from an address of its own (no test relies on another's counters being gone)."""
    return Client(REMOTE_ADDR=f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}")


def _signup(client: Client, username: str, email: str, password: str = PASSWORD) -> Any:
    return client.post("/accounts/signup/", {"username": username, "email": email, "password1": password,
                                             "password2": password})


def _link(message: Any) -> str:
    found = re.search(r"https?://[^/\s]+(/\S+)", message.body)
    assert found, message.body
    return found.group(1)


def test_signup_needs_an_email_and_a_verified_address_before_login():
    client = _client()
    assert b'name="email"' in client.get("/accounts/signup/").content
    missing = client.post("/accounts/signup/", {"username": "nomail", "password1": PASSWORD, "password2": PASSWORD})
    assert missing.status_code == 400 and not get_user_model().objects.filter(username="nomail").exists()
    name = f"carol{uuid.uuid4().hex[:6]}"
    response = _signup(client, name, f"{name}@example.org")
    assert response.status_code == 200 and b"verify-sent" in response.content
    user = get_user_model().objects.get(username=name)
    assert not user.is_active and user.email == f"{name}@example.org"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [f"{name}@example.org"]
    refused = client.post("/accounts/login/", {"username": name, "password": PASSWORD})
    assert refused.status_code == 400 and b"not confirmed" in refused.content
    link = _link(mail.outbox[0])
    assert client.get(link).status_code == 302
    user.refresh_from_db()
    assert user.is_active
    assert client.get("/submissions/").status_code == 200  # logged in by the link
    assert _client().get(link).status_code == 400  # used once
    again = _signup(_client(), name + "x", f"{name}@EXAMPLE.org")  # one account per address, not revealed
    assert again.status_code == 200 and b"verify-sent" in again.content
    assert not get_user_model().objects.filter(username=name + "x").exists()
    assert mail.outbox[-1].to == [f"{name}@example.org"] and "tried to sign up" in mail.outbox[-1].subject


def test_signup_is_limited_per_address_and_per_ip(settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "SIGNUPS_PER_EMAIL_PER_DAY": 5, "SIGNUPS_PER_IP_PER_DAY": 2}
    client = _client()
    tag = uuid.uuid4().hex[:6]
    assert _signup(client, f"a{tag}", f"a{tag}@example.org").status_code == 200
    assert _signup(client, f"b{tag}", f"b{tag}@example.org").status_code == 200
    third = _signup(client, f"c{tag}", f"c{tag}@example.org")
    assert third.status_code == 429 and b"from your network" in third.content
    assert not get_user_model().objects.filter(username=f"c{tag}").exists()
    settings.ACCOUNTS = {**settings.ACCOUNTS, "SIGNUPS_PER_EMAIL_PER_DAY": 1, "SIGNUPS_PER_IP_PER_DAY": 50}
    assert _signup(_client(), f"d{tag}", f"d{tag}+1@example.org").status_code == 200
    again = _signup(_client(), f"e{tag}", f"D{tag}+2@example.org")  # the same mailbox, from anywhere
    assert again.status_code == 429 and b"this email address" in again.content


def test_every_account_limit_says_when_it_lifts(make_user, settings, monkeypatch):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "SIGNUPS_PER_IP_PER_DAY": 1, "RESETS_PER_EMAIL_PER_DAY": 1,
                         "LOGIN_FAILURES_PER_USERNAME": 2, "LOGIN_WINDOW_SECONDS": 900}
    freeze(monkeypatch)
    now, day_end = at_unix(FROZEN), window_end(FROZEN, 86400)
    client, tag = _client(), uuid.uuid4().hex[:6]
    assert _signup(client, f"a{tag}", f"a{tag}@example.org").status_code == 200
    signup = _signup(client, f"b{tag}", f"b{tag}@example.org")
    assert b"Too many sign-ups from your network today; try again in 9 h 23 min" in signup.content
    assert_retry(signup, day_end, now, json_body=False)

    user = make_user(f"lim{tag}")
    user.email = f"{user.username}@example.org"
    user.save()
    assert _client().post("/accounts/password_reset/", {"email": user.email}).status_code == 302
    reset = _client().post("/accounts/password_reset/", {"email": user.email})
    assert b"Too many password reset requests for this email address today" in reset.content
    assert_retry(reset, day_end, now, json_body=False)

    for _ in range(2):
        assert _client().post("/accounts/login/", {"username": user.username, "password": "x"}).status_code == 400
    login = _client().post("/accounts/login/", {"username": user.username, "password": "pw-" + user.username})
    assert b"Too many failed logins for this username: try again in 8 min" in login.content
    assert_retry(login, window_end(FROZEN, 900), now, json_body=False)
    freeze(monkeypatch, window_end(FROZEN, 900).timestamp())  # the window has ended: the lock is gone
    assert _client().post("/accounts/login/", {"username": user.username,
                                               "password": "pw-" + user.username}).status_code == 302


def test_password_equal_to_the_username_is_refused():
    name = f"samepass{uuid.uuid4().hex[:6]}"
    response = _signup(_client(), name, f"{name}@example.org", password=name)
    assert response.status_code == 400 and b"too similar" in response.content
    assert not get_user_model().objects.filter(username=name).exists()


def test_login_is_throttled_after_repeated_failures_and_keeps_the_username(make_user, settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "LOGIN_FAILURES_PER_USERNAME": 3, "LOGIN_FAILURES_PER_IP": 100}
    user = make_user(f"dave{uuid.uuid4().hex[:6]}")
    client = _client()
    for _ in range(3):
        failed = client.post("/accounts/login/", {"username": user.username, "password": "wrong"})
        assert failed.status_code == 400 and b"Wrong username or password" in failed.content
        assert f'value="{user.username}"'.encode() in failed.content  # the username stays in the form
    right = _client().post("/accounts/login/", {"username": user.username, "password": "pw-" + user.username})
    assert right.status_code == 429 and b"Too many failed logins for this username" in right.content
    assert "_auth_user_id" not in right.client.session
    other = make_user(f"erin{uuid.uuid4().hex[:6]}")
    assert _client().post("/accounts/login/", {"username": other.username,
                                               "password": "pw-" + other.username}).status_code == 302


def test_login_is_throttled_per_ip(make_user, settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "LOGIN_FAILURES_PER_USERNAME": 100, "LOGIN_FAILURES_PER_IP": 4}
    client = _client()
    for n in range(4):
        client.post("/accounts/login/", {"username": f"nobody{n}-{uuid.uuid4().hex[:4]}", "password": "x"})
    user = make_user(f"frank{uuid.uuid4().hex[:6]}")
    refused = client.post("/accounts/login/", {"username": user.username, "password": "pw-" + user.username})
    assert refused.status_code == 429 and b"from your network" in refused.content


def test_password_reset_flow_end_to_end(make_user):
    user = make_user(f"grace{uuid.uuid4().hex[:6]}")
    user.email = f"{user.username}@example.org"
    user.save()
    client = _client()
    form = client.get("/accounts/password_reset/")
    assert form.status_code == 200 and b"site.css" in form.content  # the site's own page, not the admin's
    sent = client.post("/accounts/password_reset/", {"email": user.email}, follow=True)
    assert sent.status_code == 200 and b"reset-sent" in sent.content
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [user.email]
    confirm = client.get(_link(mail.outbox[0]), follow=True)
    assert confirm.status_code == 200 and b"Set the password" in confirm.content
    new = "another-long-passphrase-77"
    done = client.post(confirm.redirect_chain[-1][0], {"new_password1": new, "new_password2": new}, follow=True)
    assert done.status_code == 200 and b"reset-complete" in done.content
    assert _client().post("/accounts/login/", {"username": user.username, "password": new}).status_code == 302
    assert _client().get(_link(mail.outbox[0]), follow=True).content.count(b"not valid") == 1  # used once


def test_the_pages_say_where_the_link_went_when_mail_goes_to_the_terminal(settings, capsys):
    """The embedded default prints mail on the console: the page says the link is in the terminal, not a mailbox."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    name = f"dora{uuid.uuid4().hex[:6]}"
    page = _signup(_client(), name, f"{name}@example.org").content.decode()
    assert "printed in the terminal that runs it" in page and "We sent a link" not in page
    assert f"{name}@example.org" in capsys.readouterr().out  # where the console backend wrote the mail
    reset = _client().post("/accounts/password_reset/", {"email": f"{name}@example.org"}, follow=True)
    assert "printed in the terminal that runs this site" in reset.content.decode()
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert b"We sent a link" in _signup(_client(), name + "y", f"{name}y@example.org").content
