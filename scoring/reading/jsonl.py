"""A JSON Lines reader that reports problems instead of crashing.

Hostile input (binary data, UTF-16, 10 MB lines, deep nesting, numbers with
100,000 digits) becomes a :class:`~scoring.reading.problems.Problem` naming the file
and line; reading always goes on to the next line.
"""

from __future__ import annotations

import bisect
import csv
import json
import json.scanner
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from scoring.reading.problems import ProblemLog

MAX_LINE_BYTES = 1 << 20
"""Per-line limit of a prediction file (1 MiB): a 30,000-character answer is a normal model
output and is scored; a line of megabytes is an error that protects the workers."""
# PostgreSQL text and jsonb cannot hold U+0000, and no UTF-8 encoder writes a lone surrogate
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_SNIFF_BYTES = 8192
_BINARY_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"PK\x03\x04": "zip",
    b"%PDF": "PDF",
    b"\x89PNG": "PNG",
    b"\x7fELF": "executable",
}
_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32 little-endian"), (b"\x00\x00\xfe\xff", "UTF-32 big-endian"),
              (b"\xff\xfe", "UTF-16 little-endian"), (b"\xfe\xff", "UTF-16 big-endian"))


def read_jsonl(
    path: str | Path,
    log: ProblemLog,
    *,
    name: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for every line that parses to a JSON object.

    Problems go to ``log`` under ``name`` (default: the file name). Blank lines
    are skipped; a UTF-8 byte-order mark on the first line is tolerated.
    """
    display = name or Path(path).name
    with open(path, "rb") as handle:
        if not _sniff_file(handle, display, log):
            return
        yield from _read_lines(handle, display, log, max_line_bytes)


def _sniff_file(handle: IO[bytes], display: str, log: ProblemLog) -> bool:
    head = handle.read(_SNIFF_BYTES)
    handle.seek(0)
    return _sniff_head(head, display, log)


def _sniff_head(head: bytes, display: str, log: ProblemLog) -> bool:
    """False, with the problem logged, for an empty, binary, compressed or UTF-16/32 file."""
    if not head:
        log.add(display, 0, "empty_file", "the file is empty")
        return False
    for magic, kind in _BINARY_MAGIC.items():
        if head.startswith(magic):
            log.refuse(display, 0, "binary_file", f"this is a {kind} file, not JSON Lines text")
            return False
    wide = _wide_encoding(head)
    if wide:
        log.refuse(display, 0, "encoding", f"the file is {wide}, not UTF-8; save it as UTF-8")
        return False
    if b"\x00" in head:
        log.refuse(display, 0, "binary_file", "the file contains NUL bytes: binary data, not JSON Lines text")
        return False
    return True


def _wide_encoding(head: bytes) -> str | None:
    """The UTF-16/32 encoding ``head`` is in, by its byte-order mark or, without one, by where its NUL bytes
    fall (the high byte of every ASCII character), or ``None``."""
    for bom, name in _WIDE_BOMS:
        if head.startswith(bom):
            return name
    sample = head[:4096]
    if len(sample) < 4 or b"\x00" not in sample:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    half = len(sample) // 2
    if odd > 0.6 * half and even < 0.05 * half:
        return "UTF-16 little-endian without a byte-order mark"
    if even > 0.6 * half and odd < 0.05 * half:
        return "UTF-16 big-endian without a byte-order mark"
    return None


def guess_encoding(raw: bytes, start: int) -> str:
    """Why ``raw`` (a line) is not UTF-8 at byte ``start``, naming the encoding it looks like: a Windows
    code page (bytes 0x80-0x9f are its punctuation), Latin-1, or an 8-bit encoding unnamed."""
    column = f"byte 0x{raw[start]:02x} at column {start + 1}"
    try:
        text = raw.decode("cp1252")
    except UnicodeDecodeError:
        return f"it is in an 8-bit encoding other than UTF-8 ({column})"
    name = ("Windows-1252 (cp1252)" if any(0x80 <= b <= 0x9F for b in raw)
            else "Latin-1 (ISO-8859-1) or Windows-1252")
    index = len(raw[:start].decode("cp1252"))
    char, word = json.dumps(text[index], ensure_ascii=False), json.dumps(_word_at(text, index), ensure_ascii=False)
    return f"it looks like {name}: {column} is {char} there, as in {word}"


def _word_at(text: str, index: int) -> str:
    """The whitespace-delimited word of ``text`` around ``index``, at most 40 characters."""
    start = max(text.rfind(" ", 0, index) + 1, index - 20)
    end = text.find(" ", index)
    end = min(len(text) if end < 0 else end, index + 20)
    return text[start:end].strip("\r\n\"{}:,")


def csv_header(line: str) -> str | None:
    """The column names when ``line`` (a file's first line, not JSON) reads as a CSV or TSV header, else ``None``."""
    stripped = line.strip().lstrip("\ufeff")
    if not stripped or stripped[0] in "{[":
        return None
    delimiter = "\t" if "\t" in stripped else ","
    if delimiter not in stripped:
        return None
    names = next(csv.reader([stripped], delimiter=delimiter))
    kind = "TSV" if delimiter == "\t" else "CSV"
    return f"{kind} (columns: {_short(', '.join(names), 80)})"


def _csv_problem(header: str) -> str:
    return (f"this is a {header}, not JSON Lines: write one JSON object per line, such as "
            '{"id": "...", "prediction": "..."} with the fields the benchmark reads')


def _read_lines(
    handle: IO[bytes], display: str, log: ProblemLog, max_line_bytes: int
) -> Iterator[tuple[int, dict[str, Any]]]:
    line_no = 0
    utf8_seen = first = False  # a non-ASCII UTF-8 line read; the first non-blank line read
    while True:
        raw = handle.readline(max_line_bytes + 1)
        if not raw:
            return
        line_no += 1
        if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
            skipped = len(raw) + _skip_rest_of_line(handle)
            log.add(
                display, line_no, "line_too_long",
                f"line is {skipped:,} bytes; the limit is {max_line_bytes:,}",
            )
            continue
        if line_no == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if not utf8_seen:  # no line so far was UTF-8 beyond ASCII: the whole file is in another encoding
                log.refuse(display, line_no, "encoding",
                           f"the file is not UTF-8: {guess_encoding(raw, exc.start)}; save it as UTF-8")
                return
            log.add(display, line_no, "encoding",
                    f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})")
            continue
        utf8_seen = utf8_seen or not raw.isascii()
        if not first and text.strip():
            first = True
            header = None if _is_json(text) else csv_header(text)
            if header:
                log.refuse(display, line_no, "csv_file", _csv_problem(header))
                return
        obj = _parse_line(text, display, line_no, log)
        if obj is not None:
            yield line_no, obj


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _skip_rest_of_line(handle: IO[bytes]) -> int:
    skipped = 0
    while True:
        chunk = handle.readline(1 << 20)
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return skipped


def _parse_line(text: str, display: str, line_no: int, log: ProblemLog) -> dict[str, Any] | None:
    if not text.strip():
        return None
    if "\x00" in text:
        log.add(display, line_no, "binary_file", "line contains NUL characters")
        return None
    repeated: list[str] = []
    try:
        obj = json.loads(text, object_pairs_hook=lambda pairs: _object(pairs, repeated))
    except RecursionError:
        log.add(display, line_no, "too_deep", "JSON nesting is too deep")
        return None
    except json.JSONDecodeError as exc:
        log.add(display, line_no, "not_json", f"not valid JSON: {exc.msg} (column {exc.colno}){_lone_cr_hint(text)}")
        return None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        log.add(display, line_no, "not_json", f"not valid JSON: {_value_error(exc)}")
        return None
    if not isinstance(obj, dict):
        array = (f": the line is a JSON array of {len(obj):,} item(s); write one object per line (JSON Lines)"
                 if isinstance(obj, list) and obj and isinstance(obj[0], dict) else "")
        log.add(
            display, line_no, "not_object",
            f"each line must be a JSON object, got {json_type(obj)}{array}",
        )
        return None
    if not check_storable(obj, display, line_no, log):
        return None
    for key in dict.fromkeys(repeated):
        _warn_repeated(log, display, line_no, key)
    return obj


def _warn_repeated(log: ProblemLog, display: str, line_no: int, key: str) -> None:
    log.warn(display, line_no, "repeated_key", f"key {_short(json.dumps(key, ensure_ascii=False))} appears more "
             "than once in an object; its last value is used, as Python's json reads it", _short(key))


def _repeated_key_lines(text: str, repeated: list[str]) -> list[tuple[int, str]]:
    """(line where the object starts, key) of each key repeated in an object of a whole JSON document, read again by
    the pure-Python scanner, whose object parser sees where each object starts (line 0 where that nests too deep)."""
    newlines = [match.start() for match in re.finditer("\n", text)]
    found: list[tuple[int, str]] = []

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> Any:
        line = bisect.bisect_left(newlines, s_and_end[1]) + 1
        keys: list[str] = []
        parsed = json.decoder.JSONObject(  # type: ignore[attr-defined]
            s_and_end, *args[:3], lambda pairs: _object(pairs, keys), *args[4:])
        found.extend((line, key) for key in dict.fromkeys(keys))
        return parsed

    decoder = json.JSONDecoder()
    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    try:
        decoder.decode(text)
    except RecursionError:
        return [(0, key) for key in dict.fromkeys(repeated)]
    return sorted(found, key=lambda entry: entry[0])


def _object(pairs: list[tuple[str, Any]], repeated: list[str]) -> dict[str, Any]:
    """A JSON object as ``json`` builds it (the last of repeated keys wins), noting the repeated keys."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                repeated.append(key)
            seen.add(key)
    return obj


def _lone_cr_hint(text: str) -> str:
    """Why a line fails when its file ends lines with a bare CR (classic Mac OS): the records run together on
    one line, and the parser's "Extra data" alone does not say so."""
    if "\r" not in text.rstrip("\r\n"):
        return ""
    return "; the line holds carriage returns (CR) without a line feed: end each line with \\n (LF)"


def check_storable(obj: Any, display: str, line_no: int, log: ProblemLog) -> bool:
    """False (and one ``unstorable_text`` problem naming the field) when a key holds U+0000 or a string a lone
    surrogate, e.g. from a JSON escape ``\\u0000`` or ``\\ud800``. A NUL inside a string value (a model's
    output can hold one: LTU-AS's MTG-genre answers do) cannot be stored either, but the publisher scores the
    answer: it is removed, in place, with a warning on its line, and the object kept."""
    try:
        removed = _nul_values_removed(obj, "")
        found = _unstorable(obj, "")
    except RecursionError:
        log.add(display, line_no, "too_deep", "JSON nesting is too deep")
        return False
    for field in dict.fromkeys(removed):
        log.warn(display, line_no, "nul_removed", f"{field or 'a value'} contains a NUL character (U+0000), which "
                 "cannot be stored: removed (bert-score's BERT tokenizers drop it too)", field or None)
    if found is None:
        return True
    field, char = found
    what = "a NUL character (U+0000)" if char == "\x00" else f"a lone surrogate (U+{ord(char):04X})"
    log.add(display, line_no, "unstorable_text",
            f"{field or 'a key'} contains {what}, which cannot be stored; remove it", field or None)
    return False


def _nul_values_removed(value: Any, path: str) -> list[str]:
    """Remove NUL characters from the string values (not keys) of a parsed JSON object; the fields it changed."""
    changed: list[str] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in list(items):
        where = (f"{path}.{key}" if path else str(key)) if isinstance(value, dict) else f"{path}[{key}]"
        if isinstance(item, str) and "\x00" in item:
            value[key] = item.replace("\x00", "")
            changed.append(where)
        elif isinstance(item, dict | list):
            changed += _nul_values_removed(item, where)
    return changed


def _unstorable(value: Any, path: str) -> tuple[str, str] | None:
    if isinstance(value, str):
        match = _UNSTORABLE.search(value)
        return (path, match.group()) if match else None
    if isinstance(value, dict):
        for key, item in value.items():
            match = _UNSTORABLE.search(key)
            if match:
                return (path, match.group())
            found = _unstorable(item, f"{path}.{key}" if path else key)
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _unstorable(item, f"{path}[{index}]")
            if found:
                return found
    return None


_JSON_ITEMS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[{]|[\]}]|,')


def _array_item_at(text: str, pos: int) -> int | None:
    """The 1-based item of the top-level array ``text`` that character ``pos`` falls in (``None`` outside one)."""
    level, item = 0, 0
    for match in _JSON_ITEMS.finditer(text, 0, pos):
        token = match.group()
        if token in "[{":
            level += 1
            if level == 2 and item == 0:
                item = 1
        elif token in "]}":
            level -= 1
        elif token == "," and level == 1:
            item += 1 if item else 2
    return max(item, 1) if level >= 1 else None


_JSON_STRUCTURE = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[{]|[\]}]|\n')
NESTING_REPORTED = 500
"""The depth from which :func:`nesting_line` reports a line (Python's parser gives up near 1,000)."""


def nesting_line(text: str, depth: int = NESTING_REPORTED) -> int:
    """The 1-based line on which ``text`` first nests ``depth`` arrays or objects deep (1 if never):
    a JSON parser's ``RecursionError`` carries no position."""
    level, line = 0, 1
    for match in _JSON_STRUCTURE.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token in "[{":
            level += 1
            if level >= depth:
                return line
        elif token in "]}":
            level -= 1
    return 1


def json_type(value: object) -> str:
    """The JSON name of a parsed value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _value_error(exc: ValueError) -> str:
    """json's ValueError in the file's terms (Python's integer-conversion limit names its own internals)."""
    if "int_max_str_digits" in str(exc) or "Exceeds the limit" in str(exc):
        return f"a number has more than {sys.get_int_max_str_digits():,} digits"
    return _short(str(exc))


def _document_text(path: str | Path, name: str, log: ProblemLog) -> str | None:
    """A publisher's whole file as text (a UTF-8 BOM allowed), or ``None`` with the problem logged: binary,
    compressed and UTF-16/32 files named as such, invalid UTF-8 by its line and column, as in JSON Lines."""
    data = Path(path).read_bytes()
    if not _sniff_head(data[:_SNIFF_BYTES], name, log):
        return None
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line_end = data.find(b"\n", exc.start)
        raw = data[line_start:len(data) if line_end < 0 else line_end]
        line = data.count(b"\n", 0, exc.start) + 1
        try:
            data[:line_start].decode("utf-8")
            utf8_seen = not data[:line_start].isascii()
        except UnicodeDecodeError:  # pragma: no cover - the first bad byte is on this line
            utf8_seen = True
        if utf8_seen:
            log.add(name, line, "encoding",
                    f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at column {exc.start - line_start + 1})")
        else:
            log.refuse(name, line, "encoding",
                       f"the file is not UTF-8: {guess_encoding(raw, exc.start - line_start)}; save it as UTF-8")
        return None


def read_text_file(path: str | Path, name: str, log: ProblemLog) -> str | None:
    """A publisher's plain-text file (SongFormer's MSA TXT) as text, read as :func:`read_records` reads a file:
    a UTF-8 BOM allowed; binary, compressed, UTF-16/32 and invalid UTF-8 files are problems under ``name``."""
    return _document_text(path, name, log)


def load_json_document(path: str | Path, log: ProblemLog) -> Any:
    """A publisher's whole JSON file (a BOM allowed), or ``None`` with the problem logged (line named where known)."""
    name = Path(path).name
    text = _document_text(path, name, log)
    return None if text is None else parse_json_document(text, name, log)


def load_json_of_type(path: str | Path, log: ProblemLog, kind: type, expected: str) -> Any:
    """:func:`load_json_document` whose top level must be a ``kind`` (``list``, ``dict``): else ``None``, with a
    ``wrong_type`` problem saying ``expected``."""
    data = load_json_document(path, log)
    if data is not None and not isinstance(data, kind):
        log.add(Path(path).name, 0, "wrong_type", expected)
        return None
    return data


def parse_json_document(text: str, name: str, log: ProblemLog) -> Any:
    """``text`` as one JSON document, or ``None`` with the problem logged (nesting too deep names its line).
    A key repeated in an object keeps its last value, as Python's json reads it, with a warning naming the line
    where that object starts."""
    repeated: list[str] = []
    try:
        data = json.loads(text, object_pairs_hook=lambda pairs: _object(pairs, repeated))
        if repeated:
            for line, key in _repeated_key_lines(text, repeated):
                _warn_repeated(log, name, line, key)
        return data
    except json.JSONDecodeError as exc:
        item = _array_item_at(text, exc.pos) if exc.lineno == 1 and text.lstrip().startswith("[") else None
        if item is not None:  # one long line: the item is what a person can find
            log.name_items(name)
            log.add(name, item, "not_json", f"not a JSON document: {exc.msg} in item {item} of the array "
                    f"(character {exc.pos + 1:,} of the line)")
        else:
            log.add(name, exc.lineno, "not_json", f"not a JSON document: {exc.msg} (column {exc.colno})")
    except RecursionError:
        log.add(name, nesting_line(text), "too_deep", "JSON nesting is too deep")
    except ValueError as exc:
        log.add(name, 0, "not_json", f"not a JSON document: {_value_error(exc)}")
    return None


def read_records(path: str | Path, log: ProblemLog) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, object)`` of a publisher's JSON array (line = 1-based position) or JSON Lines file.

    JSON Lines are split on ``\\n`` only (``str.splitlines()`` would also split at U+2028, U+2029 or
    U+0085 inside strings); objects that cannot be stored (NUL, lone surrogates) are problems."""
    name = Path(path).name
    text = _document_text(path, name, log)
    if text is None:
        return
    items: Iterator[tuple[int, Any]]
    if text.lstrip().startswith("["):
        data = parse_json_document(text, name, log)
        if data is None:
            return
        if not isinstance(data, list):
            log.add(name, 0, "wrong_type", "expected a JSON array of records")
            return
        items = enumerate(data, start=1)
    else:
        items = _json_lines(text, name, log)
    for line, record in items:
        if not isinstance(record, dict):
            log.add(name, line, "not_object", f"each record must be a JSON object, got {json_type(record)}")
        elif check_storable(record, name, line, log):
            yield line, record


def _json_lines(text: str, name: str, log: ProblemLog) -> Iterator[tuple[int, Any]]:
    first = True
    for line, raw in enumerate(text.split("\n"), start=1):
        raw = raw.removesuffix("\r")
        if not raw.strip():
            continue
        if first:
            first = False
            header = None if _is_json(raw) else csv_header(raw)
            if header:
                log.refuse(name, line, "csv_file", _csv_problem(header))
                return
        if len(raw) * 4 > MAX_LINE_BYTES and (size := len(raw.encode("utf-8", "surrogatepass"))) > MAX_LINE_BYTES:
            log.add(name, line, "line_too_long", f"line is {size:,} bytes; the limit is {MAX_LINE_BYTES:,}")
            continue
        try:
            yield line, json.loads(raw)
        except RecursionError:
            log.add(name, line, "too_deep", "JSON nesting is too deep")
        except ValueError as exc:
            log.add(name, line, "not_json", f"not valid JSON: {_value_error(exc)}")
