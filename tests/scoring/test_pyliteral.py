"""The safe literal reader gives what ``eval`` gives, with ``ast.literal_eval`` as the oracle.

``ast.literal_eval`` appears only here, as the independent judge of what ``eval`` returns for a
literal; the scoring code never evaluates a model's text.
"""

from __future__ import annotations

import ast

import pytest

from scoring.reading.pyliteral import MAX_DEPTH, LiteralError, parse_literal

LITERALS = [
    "[('0.1741', '0.2785', 'Glissando'), ('0.2785', '0.4061', 'Glissando'), ('3.2260', '4.3051', 'Vibrato')]",
    "[('0.0', '10.0', 'No Tech')]",
    "[(0.5, 1.25, 'Upward Portamento'), (2, 3, \"Point Note\")]",
    "[{'start': 1.5, 'end': 2, 'technique': 'Tremolo'}, {'start': '3.0', 'end': '4.0', 'technique': 'Plucks'},]",
    "[\n  (0.5, 1.0, 'Vibrato'),\n  (1.0, 2.0, 'Plucks')\n]",
    "[(1,)]", "[(1)]", "[()]", "[[]]", "[{}]", "[{'a': {'b': [1, (2,)]}}]",
    "[-1.5e-3, +2, -(3), 1_000.5, .5, 5., 0, 0_0, 1E5, 1e-0_5, 00.5, 7_7]",
    "[0x10, 0XfF, 0o17, 0O7, 0b101, 0B1_0, 0x_1f, -0x1, (0xA, 0xB, 'Vibrato')]",
    "[True, False, None]",
    "{1: 2, 1: 3, 'a': [1, {'b': ()}], (1, 'x'): None}",
    "[1, # a comment\n 2]",
    r"""['a\'b', "c\"d", '\x41\u00e9\N{BULLET}\101\0', r'\d\'', 'x' "y" 'z', u'u', R'\n', '\q']""",
    r"['tab\tnew\nline\\back\a\b\f\v\r']",
    "['\\\nx']",
    "['''triple''']",
    "['中文', '\U0001F3B8', 'e\u0301']",
    "[1e999, -1e999]",
    "[" + "9" * 4300 + "]",
]

REFUSED = [
    "[1 2]", "[Vibrato]", "[1, 2", "[007]", "[{1, 2}]", "[1j]", "[b'x']", "[f'x']", "[1+2]",
    "['\\x4']", "['\\N{NO SUCH NAME}']", "[{[1]: 2}]", "[1.2.3]", "[1_]", "[1__0]", "['a\nb']", "[\u00a0 1]",
    "[(0.5*2, 1, 'V')]", "[-'a']", "[" + "9" * 4301 + "]", "", "]", "[,]", "[1,,2]", "{1}", "{1: }",
    "[0x]", "[0x1g]", "[0o8]", "[0b2]", "[0x1.5]", "[0x1__2]", "[0x_]",
    "[print('x')]", "[__import__('os')]", "['unterminated]",
]


NON_ASCII_DIGITS = ["[\uff11.\uff15]", "[1\u0663]", "[0.\u0665]", "[1e\u0663]", "[1_\u0663]", "[\u0663]"]


@pytest.mark.parametrize("text", NON_ASCII_DIGITS)
def test_digits_other_than_ascii_are_refused_as_python_refuses_them(text: str) -> None:
    with pytest.raises(SyntaxError):
        ast.literal_eval(text)
    with pytest.raises(LiteralError):
        parse_literal(text)


@pytest.mark.parametrize("text", LITERALS)
def test_literals_read_as_eval_reads_them(text: str) -> None:
    expected = ast.literal_eval(text)
    value = parse_literal(text)
    assert value == expected or (value != value and expected != expected)
    assert repr(value) == repr(expected)  # same types all the way down (int vs float, tuple vs list)


def test_long_hex_and_binary_literals_are_read_as_python_reads_them() -> None:
    text = "[0x" + "f" * 5000 + ", 0b" + "1" * 20000 + "]"  # Python limits the digits of the other bases only
    assert parse_literal(text) == ast.literal_eval(text) == [16**5000 - 1, 2**20000 - 1]


@pytest.mark.parametrize("text", REFUSED)
def test_non_literals_and_malformed_text_are_refused(text: str) -> None:
    with pytest.raises(LiteralError):
        parse_literal(text)


def test_unary_signs_read_as_eval_reads_them() -> None:
    # literal_eval refuses "-True" and "- -4"; eval gives -1 and 4, and so do we
    assert parse_literal("[- -4, -+-1.5]") == [4, 1.5]
    assert parse_literal("[-True, +False]") == [-1, 0]
    assert [type(v) for v in parse_literal("[-True, +False]")] == [int, int]


def test_nesting_is_bounded() -> None:
    assert parse_literal("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(LiteralError, match="nested deeper"):
        parse_literal("[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5))
    with pytest.raises(LiteralError):
        parse_literal("-" * 10_000 + "1")


@pytest.mark.slow
def test_large_input_reads_in_linear_time() -> None:
    text = "[" + ", ".join(f"({i / 10:.2f}, {i / 10 + 0.05:.2f}, 'Vibrato')" for i in range(50_000)) + "]"
    assert parse_literal(text) == ast.literal_eval(text)
