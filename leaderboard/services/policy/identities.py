"""Who an attempt is really about: the mailbox an address reaches, the name a login resolves to,
the network a client is in. Limits and uniqueness checks key on these, never on the raw text,
so look-alike spellings of one identity share one counter.
"""

from __future__ import annotations

import ipaddress
import unicodedata

# two-level public suffixes common enough to matter (``a@x.co.uk`` is the domain ``x.co.uk``)
_SECOND_LEVEL = frozenset({"ac", "co", "com", "edu", "gov", "ne", "net", "or", "org"})


def username_identity(username: str) -> str:
    """The login name as Django resolves it (NFKC), case-folded: ``ａｌｉｃｅ`` and ``𝐀lice`` are ``alice``."""
    return unicodedata.normalize("NFKC", username).casefold().strip()


def email_mailbox(email: str) -> str:
    """The mailbox an address reaches, for uniqueness and limits (never for sending).

    NFKC and case-folded; a quoted local part unquoted; a ``+tag`` and dots in the local part
    dropped; the domain reduced to its registrable part (``mail.example.org`` -> ``example.org``).
    Distinct mailboxes may share a form (``a.b@x`` and ``ab@x``): the check errs towards one.
    """
    text = unicodedata.normalize("NFKC", email).strip().casefold()
    local, _, domain = text.rpartition("@")
    if len(local) >= 2 and local.startswith('"') and local.endswith('"'):
        local = local[1:-1].replace("\\", "")
    local = local.split("+", 1)[0].replace(".", "")
    return f"{local}@{registrable_domain(domain)}"


def registrable_domain(domain: str) -> str:
    """``a.b.example.org`` -> ``example.org``; ``x.y.co.uk`` -> ``y.co.uk`` (common two-level suffixes)."""
    labels = [label for label in domain.strip(".").split(".") if label]
    keep = 3 if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL else 2
    return ".".join(labels[-keep:])


def client_network(ip: str) -> str:
    """The network a client address belongs to: its /24 (IPv4) or /64 (IPv6); other text as given."""
    try:
        address = ipaddress.ip_address(ip.strip())
    except ValueError:
        return ip.strip()
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    prefix = 24 if address.version == 4 else 64
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))
