"""A safe reader for the Python literals that model outputs contain (``[('0.5', '1.2', 'Vibrato')]``).

Some publishers' scorers call ``eval()`` on a model's answer; we never evaluate anything. This
module reads the literal subset of Python's syntax and gives the value ``eval`` would give:
lists, tuples (including ``()`` and ``(x,)``; ``(x)`` is ``x``), dicts, single- or double-quoted
strings (``r``/``u`` prefixes, every escape Python knows, adjacent literals concatenated),
ints (decimal, hex, octal, binary) and floats in ASCII digits (underscores, exponents, any number
of unary ``+``/``-``; Python's tokenizer refuses other digits, such as ``１`` or ``٣``), ``True``,
``False``, ``None`` and ``#`` comments. Anything else (names, calls, arithmetic, sets, bytes,
f-strings, triple quotes, imaginary numbers) raises :class:`LiteralError`, as does nesting deeper
than :data:`MAX_DEPTH`. Linear in the input's length.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

MAX_DEPTH = 100
MAX_INT_DIGITS = 4300  # CPython's own limit for int(str)

_TOKEN = re.compile(r"""
    (?P<space>(?:[ \t\f\r\n]|\\\r?\n|\#[^\r\n]*)+)
  | (?P<string>(?:[rR][uU]?|[uU][rR]?)?(?:'(?:[^'\\\r\n]|\\(?:\r\n|[\s\S]))*'|"(?:[^"\\\r\n]|\\(?:\r\n|[\s\S]))*"))
  | (?P<number>(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+)(?![\w.])
               |(?:[0-9](?:_?[0-9])*(?:\.(?:[0-9](?:_?[0-9])*)?)?|\.[0-9](?:_?[0-9])*)
               (?:[eE][+-]?[0-9](?:_?[0-9])*)?(?![\w.]))
  | (?P<name>[A-Za-z_]\w*)
  | (?P<punct>[\[\](){},:+-])
""", re.VERBOSE)
_ESCAPE = re.compile(r"\\(N\{[^}]*\}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|\r\n|[\s\S])")
_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                   "t": "\t", "v": "\v", "\n": "", "\r": "", "\r\n": ""}
_CONSTANTS = {"True": True, "False": False, "None": None}
_DECIMAL_INT = re.compile(r"0(?:_?0)*|[1-9](?:_?[0-9])*")


class LiteralError(ValueError):
    """The text is not a Python literal this reader accepts."""


def parse_literal(text: str) -> Any:
    """The value of the Python literal ``text`` (what ``eval`` gives), or :class:`LiteralError`."""
    tokens = _tokenize(text)
    value, position = _value(tokens, 0, 0)
    if position != len(tokens):
        raise LiteralError(f"unexpected {tokens[position][1]!r} after the literal")
    return value


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise LiteralError(f"unexpected character {text[position]!r} at offset {position}")
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append((kind, match.group()))
        position = match.end()
    return tokens


def _value(tokens: list[tuple[str, str]], position: int, depth: int) -> tuple[Any, int]:
    if depth > MAX_DEPTH:
        raise LiteralError(f"nested deeper than {MAX_DEPTH}")
    if position >= len(tokens):
        raise LiteralError("unexpected end of the literal")
    kind, text = tokens[position]
    if kind == "string":
        parts = []
        while position < len(tokens) and tokens[position][0] == "string":
            parts.append(_string(tokens[position][1]))
            position += 1
        return "".join(parts), position
    if kind == "number":
        return _number(text), position + 1
    if kind == "name":
        if text not in _CONSTANTS:
            raise LiteralError(f"{text!r} is not a literal")
        return _CONSTANTS[text], position + 1
    if text in "+-":
        operand, end = _value(tokens, position + 1, depth + 1)
        if not isinstance(operand, (int, float)):  # bools too: eval gives -True == -1
            raise LiteralError(f"unary {text} applies to numbers only")
        return (-operand if text == "-" else +operand), end  # a bool becomes an int, as in eval
    if text == "[":
        items, end, _ = _sequence(tokens, position + 1, "]", depth)
        return items, end
    if text == "(":
        items, end, trailing_comma = _sequence(tokens, position + 1, ")", depth)
        return (items[0] if len(items) == 1 and not trailing_comma else tuple(items)), end
    if text == "{":
        return _dict(tokens, position + 1, depth)
    raise LiteralError(f"unexpected {text!r}")


def _sequence(tokens: list[tuple[str, str]], position: int, close: str, depth: int) -> tuple[list[Any], int, bool]:
    items: list[Any] = []
    trailing_comma = False
    while True:
        if position < len(tokens) and tokens[position][1] == close:
            return items, position + 1, trailing_comma
        item, position = _value(tokens, position, depth + 1)
        items.append(item)
        trailing_comma = position < len(tokens) and tokens[position][1] == ","
        if trailing_comma:
            position += 1
        elif position >= len(tokens) or tokens[position][1] != close:
            raise LiteralError(f"expected ',' or {close!r}")


def _dict(tokens: list[tuple[str, str]], position: int, depth: int) -> tuple[dict[Any, Any], int]:
    result: dict[Any, Any] = {}
    while True:
        if position < len(tokens) and tokens[position][1] == "}":
            return result, position + 1
        key, position = _value(tokens, position, depth + 1)
        if position >= len(tokens) or tokens[position][1] != ":":
            raise LiteralError("expected ':' in a dict (sets are not read)")
        value, position = _value(tokens, position + 1, depth + 1)
        try:
            result[key] = value
        except TypeError as exc:  # an unhashable key: eval raises too
            raise LiteralError(f"unhashable dict key: {exc}") from None
        if position < len(tokens) and tokens[position][1] == ",":
            position += 1
        elif position >= len(tokens) or tokens[position][1] != "}":
            raise LiteralError("expected ',' or '}'")


def _number(text: str) -> int | float:
    if text[:2].lower() in ("0x", "0o", "0b"):
        return int(text, 0)  # linear in the length: Python limits only the other bases
    if re.fullmatch(r"[0-9_]+", text):
        if not _DECIMAL_INT.fullmatch(text):
            raise LiteralError(f"leading zeros in the decimal integer {text!r}")
        if len(text) > MAX_INT_DIGITS:
            raise LiteralError("integer literal too long")
        return int(text)
    return float(text)


def _string(token: str) -> str:
    quote = min(token.index("'") if "'" in token else len(token), token.index('"') if '"' in token else len(token))
    prefix, body = token[:quote].lower(), token[quote + 1 : -1]
    if "r" in prefix:
        return body
    return _ESCAPE.sub(_unescape, body)


def _unescape(match: re.Match[str]) -> str:
    escape = match.group(1)
    if escape in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[escape]
    head = escape[0]
    if head in "xuU" and len(escape) > 1:
        code = int(escape[1:], 16)
        if code > 0x10FFFF:
            raise LiteralError(f"illegal Unicode character \\{escape}")
        return chr(code)
    if head == "N" and len(escape) > 1:
        try:
            return unicodedata.lookup(escape[2:-1])
        except KeyError:
            raise LiteralError(f"unknown Unicode character name \\{escape}") from None
    if head.isdigit() and head in "01234567":
        return chr(int(escape, 8))
    if head in "xuUN":
        raise LiteralError(f"truncated \\{head} escape")
    return "\\" + escape  # an unknown escape keeps its backslash (Python warns, and keeps it)
