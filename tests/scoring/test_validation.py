"""Validation of reference and prediction files, including hostile input.

Each problem kind has its own test; every problem names its file, line and field,
reading never stops at the first problem, and no message quotes a hidden label
(reference answers, gold rankings).
"""

from __future__ import annotations

import gzip
import json

import pytest

from scoring import InvalidInput, ProblemLog, load_predictions, read_predictions, read_references
from scoring.reading.jsonl import parse_json_document
from scoring.specs import get_benchmark

SECRET = "SECRET-ANSWER-a-warm-bass-line"
GOLD = ["c2", "c0", "c3", "c1"]


def refs_file(tmp_path, kind: str, n: int = 3):
    """A valid reference file of ``n`` items for a task kind ('ranking' or 'generation')."""
    path = tmp_path / f"{kind}_refs.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(n):
            if kind == "ranking":
                record = {"id": f"d{i}", "candidates": ["c0", "c1", "c2", "c3"], "gold_ranking": GOLD}
            else:
                record = {"id": f"g{i}", "question": "Describe the music.", "answer": f"{SECRET} {i}"}
            handle.write(json.dumps(record) + "\n")
    return path


def load_refs(tmp_path, kind: str, n: int = 3):
    spec = get_benchmark("dialbgm" if kind == "ranking" else "musicqa")
    log = ProblemLog()
    references = read_references(spec, refs_file(tmp_path, kind, n), log)
    assert not log, log.problems
    return spec, references


def ok_line(kind: str, i: int) -> str:
    if kind == "ranking":
        return json.dumps({"id": f"d{i}", "scores": {"c0": 1, "c1": 2, "c2": 3, "c3": 4}})
    return json.dumps({"id": f"g{i}", "prediction": f"a guess {i}"})


def check(tmp_path, kind: str, content: bytes | str, n: int = 3, name: str = "preds.jsonl") -> ProblemLog:
    """Read ``content`` as a prediction file; return the problems; assert the hidden-label rule."""
    spec, references = load_refs(tmp_path, kind, n)
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    log = ProblemLog()
    read_predictions(spec, references, path, log)
    for problem in log.problems:
        assert SECRET not in problem.message
        assert json.dumps(GOLD) not in problem.message and ", ".join(f'"{g}"' for g in GOLD) not in problem.message
        assert problem.file in (name, references.name)
        assert isinstance(problem.line, int) and problem.line >= 0
        assert str(problem).startswith(f"{problem.file}:{problem.line}:")
    return log


def only(log: ProblemLog, kind: str) -> list:
    return [p for p in log.problems if p.kind == kind]


def scores_line(c0: str) -> str:
    """Item d1 with ``c0``'s score written as the raw JSON text ``c0``."""
    return '{"id": "d1", "scores": {"c0": ' + c0 + ', "c1": 2, "c2": 3, "c3": 4}}'


def lines(kind: str, *middle: str, n: int = 3) -> str:
    """Valid lines for items 0 and 2, the given text as line 2 (for item 1)."""
    return "\n".join([ok_line(kind, 0), *middle, ok_line(kind, 2)]) + "\n"


def test_valid_files_have_no_problems(tmp_path) -> None:
    for kind in ("ranking", "generation"):
        log = check(tmp_path, kind, "\n".join(ok_line(kind, i) for i in range(3)) + "\n")
        assert not log and log.total == 0


def test_not_json(tmp_path) -> None:
    log = check(tmp_path, "generation", lines("generation", '{"id": "g1", "prediction": "x"'))
    (problem,) = only(log, "not_json")
    assert (problem.file, problem.line, problem.field) == ("preds.jsonl", 2, None)
    assert "not valid JSON" in problem.message


def test_lone_cr_line_ends_are_named_and_crlf_line_ends_are_read(tmp_path) -> None:
    records = [ok_line("generation", i) for i in range(3)]
    log = check(tmp_path, "generation", "\r".join(records) + "\r")
    (problem,) = only(log, "not_json")
    assert (problem.file, problem.line, problem.field) == ("preds.jsonl", 1, None)
    assert problem.message == (f"not valid JSON: Extra data (column {len(records[0]) + 2}); the line holds carriage "
                               "returns (CR) without a line feed: end each line with \\n (LF)")
    assert not check(tmp_path, "generation", "\r\n".join(records) + "\r\n")
    log = check(tmp_path, "generation", lines("generation", '{"id": "g1", "prediction": "x"'))
    assert "carriage" not in only(log, "not_json")[0].message


def test_a_key_repeated_in_an_object_keeps_its_last_value_with_a_warning(tmp_path) -> None:
    spec, references = load_refs(tmp_path, "generation")
    repeated = '{"id": "g1", "prediction": "first", "meta": {"a": 1, "a": 2, "b": 3}, "prediction": "second"}'
    path = tmp_path / "preds.jsonl"
    path.write_text(lines("generation", repeated))
    log = ProblemLog()
    predictions = read_predictions(spec, references, path, log)
    assert not log and predictions[1] is not None and predictions[1].text == "second"
    assert [(w.file, w.line, w.kind, w.field) for w in log.warnings] == [
        ("preds.jsonl", 2, "repeated_key", "a"), ("preds.jsonl", 2, "repeated_key", "prediction")]
    assert log.warnings[1].message == ('key "prediction" appears more than once in an object; its last value is '
                                       "used, as Python's json reads it")
    assert log.warnings_json()["summary"] == [
        "2 key(s) repeated in one object: the last value is used, as Python's json reads it"]


def test_a_key_repeated_in_a_whole_json_document_is_warned_at_the_line_its_object_starts() -> None:
    log = ProblemLog()
    text = '{"q1": {"question": "a", "answer": "x"},\n "q2": {"question": "b",\n  "answer": "y", "answer": "z"},\n' \
           ' "q2": {"question": "c"}}\n'
    data = parse_json_document(text, "items.json", log)
    assert data == {"q1": {"question": "a", "answer": "x"}, "q2": {"question": "c"}} and not log
    assert [(w.file, w.line, w.kind, w.field) for w in log.warnings] == [
        ("items.json", 1, "repeated_key", "q2"), ("items.json", 2, "repeated_key", "answer")]
    quiet = ProblemLog()
    assert parse_json_document('[{"a": 1},\n{"a": 1}]', "items.json", quiet) == [{"a": 1}, {"a": 1}]
    assert not quiet.warnings


def test_a_repeated_key_nested_deeper_than_the_line_finder_reads_is_warned_without_a_line() -> None:
    log = ProblemLog()
    data = parse_json_document('{"a": ' * 600 + '{"k": 1, "k": 2}' + "}" * 600, "deep.json", log)
    assert data is not None and not log
    assert [(w.line, w.field) for w in log.warnings] == [(0, "k")]


def test_a_repeated_key_is_warned_only_on_a_storable_line_and_named_shortly(tmp_path) -> None:
    surrogate = '{"id": "g1", "prediction": "y", "\\ud800": 1, "\\ud800": 2}'
    log = check(tmp_path, "generation", lines("generation", surrogate))
    assert [p.kind for p in log.problems] == ["unstorable_text", "missing_item"] and not log.warnings
    long_key = "k" * 5000
    log = check(tmp_path, "generation", lines("generation", json.dumps(
        {"id": "g1", "prediction": "y", long_key: 1}).replace("}", f', "{long_key}": 2}}')))
    assert not log
    (warning,) = log.warnings
    assert warning.field == "k" * 117 + "..." and len(warning.message) < 250


def test_not_object(tmp_path) -> None:
    log = check(tmp_path, "generation", lines("generation", '["g1", "x"]'))
    (problem,) = only(log, "not_object")
    assert problem.line == 2 and "got array" in problem.message


def test_missing_field(tmp_path) -> None:
    log = check(tmp_path, "generation", lines("generation", '{"id": "g1", "answer": "x"}'))
    (problem,) = only(log, "missing_field")
    assert (problem.line, problem.field) == (2, "prediction")
    log = check(tmp_path, "ranking", lines("ranking", '{"id": "d1"}'))
    assert [(p.line, p.field) for p in only(log, "missing_field")] == [(2, "scores")]


def test_wrong_type(tmp_path) -> None:
    log = check(tmp_path, "generation", lines("generation", '{"id": "g1", "prediction": ["a", "b"]}'))
    (problem,) = only(log, "wrong_type")
    assert (problem.line, problem.field) == (2, "prediction") and "got array" in problem.message
    log = check(tmp_path, "ranking", lines("ranking", '{"id": "d1", "scores": {"c0": "1", "c1": true, '
                                                      '"c2": null, "c3": 4}}'))
    assert sorted(p.field for p in only(log, "wrong_type")) == ["scores.c0", "scores.c1", "scores.c2"]
    log = check(tmp_path, "generation", lines("generation", '{"id": 1, "prediction": "x"}'))
    assert [(p.line, p.field) for p in only(log, "wrong_type")] == [(2, "id")]


def test_duplicate_id_in_predictions_and_references(tmp_path) -> None:
    log = check(tmp_path, "generation", lines("generation", ok_line("generation", 1), ok_line("generation", 1)))
    (problem,) = only(log, "duplicate_id")
    assert (problem.line, problem.field) == (3, "id") and "already on line 2" in problem.message

    path = tmp_path / "dup_refs.jsonl"
    path.write_text("".join(json.dumps({"id": "g0", "answer": f"{SECRET} {i}"}) + "\n" for i in range(2)))
    log = ProblemLog()
    references = read_references(get_benchmark("musicqa"), path, log)
    (problem,) = only(log, "duplicate_id")
    assert (problem.file, problem.line, problem.field) == ("dup_refs.jsonl", 2, "id")
    assert SECRET not in problem.message
    assert len(references) == 1


def test_unknown_id(tmp_path) -> None:
    log = check(tmp_path, "generation", lines("generation", ok_line("generation", 1),
                                              '{"id": "nope", "prediction": "x"}'))
    (problem,) = only(log, "unknown_id")
    assert (problem.line, problem.field) == (3, "id") and '"nope"' in problem.message


def test_missing_item(tmp_path) -> None:
    log = check(tmp_path, "generation", lines("generation"))
    (problem,) = only(log, "missing_item")
    # one problem for the file: how many are missing, and which
    assert (problem.file, problem.line, problem.field) == ("preds.jsonl", 0, "id")
    assert problem.message.startswith('1 of 3 items have no prediction in preds.jsonl: "g1"')
    assert log.counts["missing_item"] == 1


def test_many_missing_items_counted_first_ids_listed(tmp_path) -> None:
    log = check(tmp_path, "generation", ok_line("generation", 5) + "\n", n=40)
    (problem,) = only(log, "missing_item")
    assert log.counts["missing_item"] == 39 and log.total == 39
    listed = ", ".join(f'"g{i}"' for i in range(11) if i != 5)
    assert problem.message == (f"39 of 40 items have no prediction in preds.jsonl: {listed} (first 10 listed); "
                               "every item needs a prediction")


def test_not_permutation_for_ranking_and_scores(tmp_path) -> None:
    log = check(tmp_path, "ranking", lines("ranking", '{"id": "d1", "ranking": ["c0", "c1", "c1", "c9"]}'))
    (problem,) = only(log, "not_permutation")
    assert (problem.line, problem.field) == (2, "ranking")
    assert 'missing "c2", "c3"' in problem.message and 'not a candidate: "c9"' in problem.message
    assert 'repeated "c1"' in problem.message

    log = check(tmp_path, "ranking", lines("ranking", '{"id": "d1", "scores": {"c0": 1, "c1": 2, "c2": 3, "x": 4}}'))
    (problem,) = only(log, "not_permutation")
    assert (problem.line, problem.field) == (2, "scores")
    assert 'missing "c3"' in problem.message and 'not a candidate: "x"' in problem.message


def test_gold_ranking_not_a_permutation_in_references(tmp_path) -> None:
    path = tmp_path / "refs.jsonl"
    path.write_text(json.dumps({"id": "d0", "candidates": ["a", "b", "c"], "gold_ranking": ["a", "b", "b"]}) + "\n")
    log = ProblemLog()
    read_references(get_benchmark("dialbgm"), path, log)
    (problem,) = only(log, "not_permutation")
    assert (problem.line, problem.field) == (1, "gold_ranking")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_non_finite_scores(tmp_path, literal) -> None:
    log = check(tmp_path, "ranking", lines("ranking", scores_line(literal)))
    (problem,) = only(log, "non_finite")
    assert (problem.line, problem.field) == (2, "scores.c0")
    assert "finite" in problem.message


def test_non_finite_integer_beyond_float_range(tmp_path) -> None:
    # 400 digits parse as a Python int (under the 4,300-digit limit) but overflow float()
    log = check(tmp_path, "ranking", lines("ranking", scores_line("9" * 400)))
    (problem,) = only(log, "non_finite")
    assert (problem.line, problem.field) == (2, "scores.c0")
    assert "9" * 50 not in problem.message


def test_huge_integer_literal_is_reported_not_raised(tmp_path) -> None:
    log = check(tmp_path, "ranking", lines("ranking", scores_line("7" * 100_000)))
    (problem,) = only(log, "not_json")
    assert problem.line == 2 and len(problem.message) < 200


def test_empty_text(tmp_path) -> None:
    # a whitespace-only prediction is scored as the publishers score it: a warning, not an error
    log = check(tmp_path, "generation", lines("generation", '{"id": "g1", "prediction": " \\n\\t "}'))
    assert not log and log.warning_counts == {"blank_prediction": 1}
    (warning,) = log.warnings
    assert (warning.line, warning.field, warning.severity) == (2, "prediction", "warning")
    assert str(warning).startswith("preds.jsonl:2: prediction: warning: ")
    log = check(tmp_path, "generation", lines("generation", '{"id": "  ", "prediction": "x"}'))
    assert [(p.line, p.field) for p in only(log, "empty_text")] == [(2, "id")]


def test_encoding_bad_utf8_line(tmp_path) -> None:
    content = (ok_line("generation", 0) + "\n").encode() + b'{"id": "g1", "prediction": "caf\xe9"}\n' + \
        (ok_line("generation", 2) + "\n").encode()
    log = check(tmp_path, "generation", content)
    (problem,) = only(log, "encoding")
    assert str(problem) == ('preds.jsonl:2: the file is not UTF-8: it looks like Latin-1 (ISO-8859-1) or Windows-1252: '
                            'byte 0xe9 at column 32 is "é" there, as in "café"; save it as UTF-8')
    assert log.total == 1  # the file is refused as a whole: its items are not listed as missing


def test_encoding_utf16_with_bom(tmp_path) -> None:
    text = "\n".join(ok_line("generation", i) for i in range(3)) + "\n"
    for encoding in ("utf-16", "utf-16-be", "utf-32"):
        bom = {"utf-16-be": b"\xfe\xff"}.get(encoding, b"")
        log = check(tmp_path, "generation", bom + text.encode(encoding))
        (problem,) = only(log, "encoding")
        assert (problem.line, problem.field) == (0, None) and "UTF-8" in problem.message


def test_utf8_bom_is_tolerated(tmp_path) -> None:
    text = "\n".join(ok_line("generation", i) for i in range(3)) + "\n"
    assert not check(tmp_path, "generation", b"\xef\xbb\xbf" + text.encode())


def test_binary_file_with_nul_bytes_and_gzip(tmp_path) -> None:
    log = check(tmp_path, "generation", b"\x00\x01\x02binary\x00")
    (problem,) = only(log, "binary_file")
    assert problem.line == 0 and "NUL" in problem.message
    text = "\n".join(ok_line("generation", i) for i in range(3)) + "\n"
    log = check(tmp_path, "generation", gzip.compress(text.encode()))
    (problem,) = only(log, "binary_file")
    assert problem.line == 0 and "gzip" in problem.message
    # a NUL byte in a line beyond the 8 KiB the file check sniffs: that line only
    padding = "".join(json.dumps({"id": f"g{i}", "prediction": "p" * 100}) + "\n" for i in range(3, 103))
    log = check(tmp_path, "generation", (text + padding).encode() + b'{"id": "g0", "prediction": "a\x00b"}\n', n=103)
    (problem,) = only(log, "binary_file")
    assert problem.line == 104 and log.total == 1


def test_empty_file(tmp_path) -> None:
    log = check(tmp_path, "generation", b"")
    (problem,) = only(log, "empty_file")
    assert problem.line == 0
    assert log.counts["missing_item"] == 3 and len(only(log, "missing_item")) == 1
    log = check(tmp_path, "generation", "\n \n\n")
    assert len(only(log, "empty_file")) == 1


def test_line_too_long(tmp_path) -> None:
    huge = json.dumps({"id": "g1", "prediction": "x" * 10_000_000})
    log = check(tmp_path, "generation", lines("generation", huge))
    (problem,) = only(log, "line_too_long")
    assert problem.line == 2 and "10,000,0" in problem.message
    assert log.counts["missing_item"] == 1  # item g1; items g0 and g2 were read
    assert log.total == 2


def test_too_deep(tmp_path) -> None:
    deep = '{"id": "g1", "prediction": ' + "[" * 100_000 + "]" * 100_000 + "}"
    log = check(tmp_path, "generation", lines("generation", deep))
    (problem,) = only(log, "too_deep")
    assert problem.line == 2


def test_long_prediction_is_valid_within_the_line_limit(tmp_path) -> None:
    log = check(tmp_path, "generation", lines("generation", json.dumps({"id": "g1", "prediction": "x y " * 50_000})))
    assert not log and not log.warnings  # 200,000 characters: a rambling answer, scored


def test_many_problems_are_all_reported(tmp_path) -> None:
    bad = [
        "not json at all",  # 1 not_json
        "[1, 2, 3]",  # 2 not_object
        '{"id": "g0"}',  # 3 missing_field
        '{"id": "g1", "prediction": 5}',  # 4 wrong_type
        '{"id": "g2", "prediction": ""}',  # 5 an empty prediction: a warning
        '{"id": "g2", "prediction": "again"}',  # 6 duplicate_id
        '{"id": "zzz", "prediction": "x"}',  # 7 unknown_id
        '{"id": "g3", "prediction": ' + "[" * 100_000 + "]" * 100_000 + "}",  # 8 too_deep
        json.dumps({"id": "g4", "prediction": "y" * 2_000_000}),  # 9 line_too_long
        '{"id": "g5", "prediction": "ok"}',  # 10 fine
    ]
    content = "\n".join(bad).encode() + b'\n{"id": "g6", "prediction": "\xff"}\n'  # 11 encoding
    log = check(tmp_path, "generation", content, n=8)
    kinds = {(p.kind, p.line) for p in log.problems}
    assert kinds == {
        ("not_json", 1), ("not_object", 2), ("missing_field", 3), ("wrong_type", 4),
        ("duplicate_id", 6), ("unknown_id", 7), ("too_deep", 8), ("line_too_long", 9), ("encoding", 11),
    }  # the file is refused for its encoding (line 11): its items are not listed as missing
    assert log.total == 9 and "missing_item" not in log.counts
    assert [(w.kind, w.line) for w in log.warnings] == [("empty_prediction", 5)]


def test_strict_loader_raises_with_every_problem(tmp_path) -> None:
    spec, references = load_refs(tmp_path, "generation")
    path = tmp_path / "preds.jsonl"
    path.write_text('{"id": "g0", "prediction": 1}\n{"id": "g1"}\n')
    with pytest.raises(InvalidInput) as caught:
        load_predictions(spec, references, path)
    assert {p.kind for p in caught.value.log.problems} == {"wrong_type", "missing_field", "missing_item"}
    assert caught.value.log.total == 3  # g0 wrong_type, g1 missing_field, g2 missing_item
