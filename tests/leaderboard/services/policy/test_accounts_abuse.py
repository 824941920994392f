"""Accounts probed as a hostile user would: look-alike names and addresses, many client addresses,
enumeration through the answers, squatting an address without verifying it, reset-mail floods."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.utils import timezone

from tests.helpers.limits import FROZEN, at_unix, freeze, retry_words, wait_seconds, window_end

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-and-unusual-passphrase-42"


def _net() -> str:
    """A /24 of its own (no test relies on another's counters being gone)."""
    n = uuid.uuid4().int
    return f"10.{n % 250}.{(n >> 8) % 250}"


def _net6() -> str:
    """A /64 of its own."""
    return f"2001:db8:{uuid.uuid4().int % 65000:x}:{uuid.uuid4().int % 65000:x}"


def _client(ip: str | None = None) -> Client:
    return Client(REMOTE_ADDR=ip or f"{_net()}.{uuid.uuid4().int % 250 + 1}")


def _signup(client: Client, username: str, email: str) -> Any:
    return client.post("/accounts/signup/", {"username": username, "email": email, "password1": PASSWORD,
                                             "password2": PASSWORD})


def _link(message: Any) -> str:
    found = re.search(r"https?://[^/\s]+(/\S+)", message.body)
    assert found, message.body
    return found.group(1)


def _login(client: Client, username: str, password: str) -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password})


def _banner(response: Any) -> str:
    found = re.search(rb'<p class="banner error" role="alert"[^>]*>(.*?)</p>', response.content, re.S)
    return found.group(1).decode() if found else ""


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _math_bold(text: str) -> str:
    def bold(c: str) -> str:
        if "a" <= c <= "z":
            return chr(0x1D41A + ord(c) - ord("a"))
        if "0" <= c <= "9":
            return chr(0x1D7CE + ord(c) - ord("0"))
        return c

    return "".join(bold(c) for c in text)


def test_lookalike_names_share_the_lock_of_the_account_they_log_into(make_user, settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "LOGIN_FAILURES_PER_USERNAME": 3, "LOGIN_FAILURES_PER_IP": 100}
    user = make_user(f"dave{uuid.uuid4().hex[:6]}")
    right = "pw-" + user.username
    wide, bold = _fullwidth(user.username), _math_bold(user.username)
    assert wide != user.username and bold != user.username
    assert _login(_client(), wide, right).status_code == 302  # Django resolves the look-alike to the account
    for name in (wide, bold, user.username.upper()):  # three failures, three spellings, three clients
        assert _login(_client(), name, "wrong").status_code == 400
    for name in (user.username, wide, bold):
        refused = _login(_client(), name, right)
        assert refused.status_code == 429 and b"Too many failed logins for this username" in refused.content
        assert "_auth_user_id" not in refused.client.session  # a look-alike neither logs in nor clears the lock
    other = make_user(f"erin{uuid.uuid4().hex[:6]}")
    assert _login(_client(), _fullwidth(other.username), "pw-" + other.username).status_code == 302


def test_login_gives_one_answer_for_an_unknown_name_a_wrong_password_and_an_unverified_account(make_user):
    known = make_user(f"kate{uuid.uuid4().hex[:6]}")
    unverified = make_user(f"liam{uuid.uuid4().hex[:6]}")
    unverified.is_active = False
    unverified.save()
    answers = [_login(_client(), name, password) for name, password in (
        (f"nobody{uuid.uuid4().hex[:6]}", PASSWORD), (known.username, "wrong"),
        (unverified.username, "pw-" + unverified.username))]
    assert [a.status_code for a in answers] == [400, 400, 400]
    assert len({_banner(a) for a in answers}) == 1 and "Wrong username or password" in _banner(answers[0])


def test_signup_is_limited_per_network_as_well_as_per_address(settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "SIGNUPS_PER_EMAIL_PER_DAY": 50, "SIGNUPS_PER_IP_PER_DAY": 5,
                         "SIGNUPS_PER_NETWORK_PER_DAY": 3}
    tag, net = uuid.uuid4().hex[:6], _net()
    for host in (2, 3, 4):
        assert _signup(_client(f"{net}.{host}"), f"n{host}{tag}", f"n{host}{tag}@example.org").status_code == 200
    refused = _signup(_client(f"{net}.5"), f"n5{tag}", f"n5{tag}@example.org")
    assert refused.status_code == 429 and b"from your network" in refused.content
    assert not get_user_model().objects.filter(username=f"n5{tag}").exists()
    assert _signup(_client(), f"n6{tag}", f"n6{tag}@example.org").status_code == 200  # another network
    six = _net6()
    for host in (1, 2, 3):
        assert _signup(_client(f"{six}::{host}"), f"v{host}{tag}", f"v{host}{tag}@example.org").status_code == 200
    assert _signup(_client(f"{six}:1::9"), f"v4{tag}", f"v4{tag}@example.org").status_code == 429  # same /64


def _created(*usernames: str) -> list[str]:
    return sorted(get_user_model().objects.filter(username__in=usernames).values_list("username", flat=True))


def test_refused_signups_do_not_lock_the_address_out(make_user, settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "SIGNUPS_PER_EMAIL_PER_DAY": 2, "SIGNUPS_PER_IP_PER_DAY": 50,
                         "SIGNUPS_PER_NETWORK_PER_DAY": 2}
    tag, busy = uuid.uuid4().hex[:6], _net()
    victim = f"victim{tag}@example.org"
    for host in (2, 3):  # someone else's sign-ups fill the network's day
        assert _signup(_client(f"{busy}.{host}"), f"o{host}{tag}", f"o{host}{tag}@example.org").status_code == 200
    for n in range(3):  # three tries with the victim's address, refused by the network's limit
        refused = _signup(_client(f"{busy}.{10 + n}"), f"r{n}{tag}", victim)
        assert refused.status_code == 429 and b"from your network" in refused.content
    weak = _client().post("/accounts/signup/", {"username": f"w{tag}", "email": victim, "password1": f"w{tag}",
                                                "password2": f"w{tag}"})
    assert weak.status_code == 400 and b"too similar" in weak.content
    holder = make_user(f"h{tag}")
    assert _signup(_client(), holder.username, victim).status_code == 400  # the name is taken
    assert _created(*(f"r{n}{tag}" for n in range(3)), f"w{tag}") == []
    for n in range(2):  # the address's own two sign-ups of the day are still there, and no more
        assert _signup(_client(), f"v{n}{tag}", victim).status_code == 200
    over = _signup(_client(), f"v2{tag}", victim)
    assert over.status_code == 429 and b"this email address" in over.content
    assert _created(f"v0{tag}", f"v1{tag}", f"v2{tag}") == [f"v0{tag}", f"v1{tag}"]


def test_signup_limits_count_accepted_signups_exactly(settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "SIGNUPS_PER_EMAIL_PER_DAY": 1, "SIGNUPS_PER_IP_PER_DAY": 3,
                         "SIGNUPS_PER_NETWORK_PER_DAY": 4}
    tag, net = uuid.uuid4().hex[:6], _net()
    home = _client(f"{net}.2")
    assert _signup(home, f"a{tag}", f"a{tag}@example.org").status_code == 200
    assert _signup(home, f"a2{tag}", f"a{tag}@example.org").status_code == 429  # the mailbox's one a day
    assert _signup(home, f"x0{tag}", f"x0{tag}@example.org").status_code == 200
    assert _signup(home, f"x1{tag}", f"x1{tag}@example.org").status_code == 200  # the IP's third
    for name in (f"x2{tag}", f"y{tag}"):
        assert _signup(home, name, f"{name}@example.org").status_code == 429
    assert _signup(_client(f"{net}.3"), f"z{tag}", f"z{tag}@example.org").status_code == 200  # the network's 4th
    refused = _signup(_client(f"{net}.4"), f"q{tag}", f"q{tag}@example.org")
    assert refused.status_code == 429 and b"from your network" in refused.content
    assert _signup(_client(), f"q{tag}", f"q{tag}@example.org").status_code == 200  # another network
    assert _created(f"a{tag}", f"a2{tag}", f"x0{tag}", f"x1{tag}", f"x2{tag}", f"y{tag}", f"z{tag}", f"q{tag}") == \
        sorted([f"a{tag}", f"x0{tag}", f"x1{tag}", f"z{tag}", f"q{tag}"])


def test_refused_reset_requests_do_not_use_up_the_mailbox(make_user, settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "RESETS_PER_EMAIL_PER_DAY": 1, "RESETS_PER_IP_PER_DAY": 1,
                         "RESETS_PER_NETWORK_PER_DAY": 50}
    user = make_user(f"rr{uuid.uuid4().hex[:6]}")
    user.email = f"{user.username}@example.org"
    user.save()
    client = _client()
    assert client.post("/accounts/password_reset/", {"email": f"other{user.username}@example.org"}).status_code == 302
    for _ in range(3):
        assert client.post("/accounts/password_reset/", {"email": user.email}).status_code == 429  # the IP's one
    before = len(mail.outbox)
    assert _client().post("/accounts/password_reset/", {"email": user.email}).status_code == 302
    assert len(mail.outbox) == before + 1 and mail.outbox[-1].to == [user.email]
    assert _client().post("/accounts/password_reset/", {"email": user.email}).status_code == 429


def test_failed_logins_spread_over_a_network_hit_its_limit(make_user, settings, monkeypatch):
    freeze(monkeypatch)
    settings.ACCOUNTS = {**settings.ACCOUNTS, "LOGIN_FAILURES_PER_USERNAME": 100, "LOGIN_FAILURES_PER_IP": 3,
                         "LOGIN_FAILURES_PER_NETWORK": 4, "LOGIN_WINDOW_SECONDS": 900}
    user = make_user(f"nina{uuid.uuid4().hex[:6]}")
    net = _net()
    for host in (2, 3, 4, 5):  # one failure from each address: under the per-IP limit everywhere
        assert _login(_client(f"{net}.{host}"), f"nobody{uuid.uuid4().hex[:6]}", "x").status_code == 400
    refused = _login(_client(f"{net}.6"), user.username, "pw-" + user.username)
    assert refused.status_code == 429 and "_auth_user_id" not in refused.client.session
    end, now = window_end(FROZEN, 900), at_unix(FROZEN)
    assert _banner(refused) == f"Too many failed logins from your network: try again {retry_words(end, now)}."
    assert refused["Retry-After"] == str(wait_seconds(end, now)) == str(7 * 60 + 40)
    assert _login(_client(), user.username, "pw-" + user.username).status_code == 302  # another network


def test_failed_logins_spread_over_an_ipv6_network_hit_its_limit(make_user, settings):
    limits = {key: value for key, value in settings.ACCOUNTS.items() if key != "LOGIN_FAILURES_PER_NETWORK"}
    settings.ACCOUNTS = {**limits, "LOGIN_FAILURES_PER_USERNAME": 100, "LOGIN_FAILURES_PER_IP": 2}
    user = make_user(f"omar{uuid.uuid4().hex[:6]}")
    six = _net6()
    for host in range(1, 4):  # unset, a network's limit is twice a client's: 4
        assert _login(_client(f"{six}::{host}"), f"nobody{uuid.uuid4().hex[:6]}", "x").status_code == 400
    assert _login(_client(f"{six}::9"), user.username, "pw-" + user.username).status_code == 302
    assert _login(_client(f"{six}:1::4"), f"nobody{uuid.uuid4().hex[:6]}", "x").status_code == 400  # the 4th
    assert _login(_client(f"{six}:ffff::9"), user.username, "pw-" + user.username).status_code == 429  # same /64
    assert _login(_client(f"{_net6()}::9"), user.username, "pw-" + user.username).status_code == 302


def test_spellings_of_one_mailbox_are_one_address_for_uniqueness_and_limits(settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "SIGNUPS_PER_EMAIL_PER_DAY": 50, "SIGNUPS_PER_IP_PER_DAY": 50}
    tag = uuid.uuid4().hex[:6]
    owner = f"o{tag}"
    assert _signup(_client(), owner, f"ann.{tag}@example.org").status_code == 200
    assert _client().get(_link(mail.outbox[-1])).status_code == 302  # verified and active
    spellings = [f'"ann{tag}"@example.org', f"ann{tag}@mail.example.org", f"Ann.{tag}+x@Example.org",
                 f"a.n.n{tag}@lists.example.org"]
    for n, address in enumerate(spellings):
        before = len(mail.outbox)
        again = _signup(_client(), f"s{n}{tag}", address)
        assert again.status_code == 200 and b"verify-sent" in again.content, address  # answered as a sign-up
        assert not get_user_model().objects.filter(username=f"s{n}{tag}").exists(), address
        assert len(mail.outbox) == before + 1 and mail.outbox[-1].to == [f"ann.{tag}@example.org"]
        assert "tried to sign up" in mail.outbox[-1].subject  # the owner is told; no link to anyone else
    settings.ACCOUNTS = {**settings.ACCOUNTS, "SIGNUPS_PER_EMAIL_PER_DAY": 1}
    fresh = f"bo.{tag}@example.net"
    assert _signup(_client(), f"b{tag}", fresh).status_code == 200
    for n, address in enumerate([f'"bo{tag}"@example.net', f"bo{tag}@eu.example.net", f"B.O.{tag}+2@example.net"]):
        refused = _signup(_client(), f"c{n}{tag}", address)
        assert refused.status_code == 429 and b"this email address" in refused.content, address


def test_signup_does_not_say_whether_an_address_has_an_account_and_that_answer_is_limited(make_user, settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "SIGNUPS_PER_EMAIL_PER_DAY": 2, "SIGNUPS_PER_IP_PER_DAY": 50,
                         "SIGNUPS_PER_NETWORK_PER_DAY": 50}
    tag = uuid.uuid4().hex[:6]
    holder = make_user(f"h{tag}")
    holder.email = f"h{tag}@example.org"
    holder.save()
    taken = _signup(_client(), f"t{tag}", holder.email)
    free = _signup(_client(), f"f{tag}", f"f{tag}@example.org")
    assert taken.status_code == free.status_code == 200

    def page(response: Any, address: str) -> bytes:
        without_address = response.content.replace(address.encode(), b"")
        return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]*"', b"", without_address)

    assert page(taken, holder.email) == page(free, f"f{tag}@example.org")
    assert _signup(_client(), f"u{tag}", holder.email).status_code == 200
    probe = _signup(_client(), f"w{tag}", holder.email)  # the third probe of one mailbox in a day
    assert probe.status_code == 429 and b"this email address" in probe.content


def test_an_address_signed_up_by_someone_else_stays_the_owners_through_a_new_signup(settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "SIGNUPS_PER_EMAIL_PER_DAY": 50}
    tag = uuid.uuid4().hex[:6]
    victim = f"victim{tag}@example.org"
    assert _signup(_client(), f"squat{tag}", victim).status_code == 200  # never verified: the link went to the victim
    squat_link = _link(mail.outbox[-1])
    signed = _signup(_client(), f"real{tag}", victim)
    assert signed.status_code == 200 and mail.outbox[-1].to == [victim] and "Confirm" in mail.outbox[-1].subject
    client = _client()
    assert client.get(_link(mail.outbox[-1])).status_code == 302
    assert get_user_model().objects.get(username=f"real{tag}").is_active
    assert not get_user_model().objects.filter(username=f"squat{tag}").exists()  # the rival sign-up is gone
    assert _client().get(squat_link).status_code == 400


def test_an_address_signed_up_by_someone_else_stays_the_owners_through_a_password_reset():
    tag = uuid.uuid4().hex[:6]
    victim = f"victim{tag}@example.org"
    assert _signup(_client(), f"squat{tag}", victim).status_code == 200
    before = len(mail.outbox)
    client = _client()
    sent = client.post("/accounts/password_reset/", {"email": victim}, follow=True)
    assert sent.status_code == 200 and b"reset-sent" in sent.content
    assert len(mail.outbox) == before + 1 and mail.outbox[-1].to == [victim]
    confirm = client.get(_link(mail.outbox[-1]), follow=True)
    new = "another-long-passphrase-77"
    done = client.post(confirm.redirect_chain[-1][0], {"new_password1": new, "new_password2": new}, follow=True)
    assert done.status_code == 200 and b"reset-complete" in done.content
    assert get_user_model().objects.get(username=f"squat{tag}").is_active  # the reset link proved the mailbox
    assert _login(_client(), f"squat{tag}", new).status_code == 302


def test_unverified_accounts_are_removed_once_their_link_has_expired(make_user, settings):
    tag = uuid.uuid4().hex[:6]
    assert _signup(_client(), f"old{tag}", f"old{tag}@example.org").status_code == 200
    banned = make_user(f"banned{tag}")  # deactivated by a maintainer after logging in: kept
    get_user_model().objects.filter(pk=banned.pk).update(is_active=False, last_login=timezone.now(),
                                                         date_joined=timezone.now() - timedelta(days=30))
    expired = timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT + 60)
    get_user_model().objects.filter(username=f"old{tag}").update(date_joined=expired)
    taken = _signup(_client(), f"old{tag}", f"new{tag}@example.org")  # the name is free again
    assert taken.status_code == 200, taken.content[:2000]
    assert get_user_model().objects.get(username=f"old{tag}").email == f"new{tag}@example.org"
    assert get_user_model().objects.filter(pk=banned.pk).exists()
    get_user_model().objects.filter(pk=banned.pk).update(email=f"banned{tag}@example.org")
    again = _signup(_client(), f"back{tag}", f"banned.{tag}@example.org")  # a deactivated account's mailbox
    assert again.status_code == 200 and not get_user_model().objects.filter(username=f"back{tag}").exists()


def test_password_reset_mail_is_limited_per_address_and_per_client(make_user, settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "RESETS_PER_EMAIL_PER_DAY": 2, "RESETS_PER_IP_PER_DAY": 3,
                         "RESETS_PER_NETWORK_PER_DAY": 50}
    user = make_user(f"reset{uuid.uuid4().hex[:6]}")
    user.email = f"{user.username}@example.org"
    user.save()
    before = len(mail.outbox)
    for _ in range(2):
        assert _client().post("/accounts/password_reset/", {"email": user.email}).status_code == 302
    refused = _client().post("/accounts/password_reset/", {"email": user.email.upper()})
    assert refused.status_code == 429 and b"for this email address" in refused.content
    assert len(mail.outbox) == before + 2
    client = _client()
    for n in range(3):  # unknown addresses count too: the answer does not depend on an account
        unknown = f"x{n}{user.username}@example.org"
        assert client.post("/accounts/password_reset/", {"email": unknown}).status_code == 302
    refused = client.post("/accounts/password_reset/", {"email": f"y{user.username}@example.org"})
    assert refused.status_code == 429 and b"from your network" in refused.content


def test_the_admin_login_is_the_throttled_login(make_user, settings):
    settings.ACCOUNTS = {**settings.ACCOUNTS, "LOGIN_FAILURES_PER_USERNAME": 2, "LOGIN_FAILURES_PER_IP": 100}
    staff = make_user(f"staff{uuid.uuid4().hex[:6]}", staff=True)
    assert _client().get("/admin/login/?next=/admin/").url == "/accounts/login/?next=/admin/"
    for _ in range(2):
        assert _login(_client(), staff.username, "wrong").status_code == 400
    client = _client()
    answer = client.post("/admin/login/?next=/admin/", {"username": staff.username, "password": "pw-" + staff.username})
    assert "_auth_user_id" not in client.session and answer.status_code in (301, 302)
    assert answer.url == "/accounts/login/?next=/admin/"  # no password is checked there
    assert _login(_client(), staff.username, "pw-" + staff.username).status_code == 429
