"""A column's signature as a value: what fixes its numbers, ``name:value`` fields joined by ``|``.

Like sacrebleu's ``Signature``: the engine formats one per column (``metric``, ``profile``, the family's own
fields, ``rules``, ``scoring``), and everything that reads one (boards, protocols, templates) parses it here, so the
format lives in one place. Field order is kept; a part without ``:`` is not a field and is dropped when parsed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

SEPARATOR = "|"


@dataclass(frozen=True)
class Signature:
    """The ordered ``(name, value)`` fields of one column's signature."""

    fields: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, fields: Mapping[str, object]) -> Signature:
        """From named values, in their order (values as text)."""
        return cls(tuple((str(name), str(value)) for name, value in fields.items()))

    @classmethod
    def parse(cls, text: str) -> Signature:
        """``"metric:bleu|impl:sacrebleu"`` -> its fields (a value may itself hold ``:``)."""
        parts = (part.split(":", 1) for part in (text or "").split(SEPARATOR) if ":" in part)
        return cls(tuple((name, value) for name, value in parts))

    def format(self) -> str:
        return SEPARATOR.join(f"{name}:{value}" for name, value in self.fields)

    def get(self, name: str, default: str = "") -> str:
        return next((value for field, value in self.fields if field == name), default)

    def as_dict(self) -> dict[str, str]:
        return dict(self.fields)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.fields)

    def __str__(self) -> str:
        return self.format()
