"""SongFormBench's ``songform`` family against an independent reimplementation of SongFormer's
``eval_infer_results.py`` (its loader, ``cal_acc``, ``cal_iou``, msaf 0.1.80 ``compute_results``'s mir_eval
calls and the summary's means), on messy model answers and on the released references."""

from __future__ import annotations

import bisect
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import mir_eval
import numpy as np
import pytest

from scoring.metrics.base import ScoringContext
from scoring.metrics.songform.answers import read_answer
from scoring.metrics.songform.family import OUTPUTS, SongForm
from scoring.metrics.songform.reader import songform_prediction_rows, songform_reference_rows
from scoring.reading.problems import ProblemLog
from scoring.task_types import Prediction, Reference
from tests.helpers.shared import shared_file

OFFICIAL = ("intro verse chorus bridge inst outro silence pre-chorus prechorus solo break NO_LABEL").split()


def load_msa(text: str) -> list[tuple[float, str]]:
    """SongFormer's load_msa_info on a text: two fields a line, last label 'end'."""
    msa = []
    for line in text.splitlines():
        if line.strip():
            time, label = line.split()
            msa.append((float(time), label))
    assert msa[-1][1] == "end"
    return msa


def oracle_song(ref_text: str, est_text: str) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    ref = [(t, "verse" if lab == "pre-chorus" else lab) for t, lab in load_msa(ref_text)]
    est = [(t, "verse" if lab == "pre-chorus" else lab) for t, lab in load_msa(est_text)]
    ids: dict[str, int] = {}

    def inter(msa: list[tuple[float, str]]) -> tuple[np.ndarray, list[int]]:
        times = np.array([t for t, _ in msa])
        return np.stack([times[:-1], times[1:]], axis=1), [ids.setdefault(lab, len(ids)) for _, lab in msa[:-1]]

    (ri, rl), (ei, el) = inter(ref), inter(est)
    out: dict[str, float] = {}
    for name, window in (("hr05", 0.5), ("hr1", 1.0), ("hr3", 3.0)):
        p, r, f = mir_eval.segment.detection(ri, ei, window=window, trim=False)
        out |= {f"{name}_p": p, f"{name}_r": r, f"{name}_f": f}
    ri2, rl2 = mir_eval.util.adjust_intervals(ri, rl)
    ei2, el2 = mir_eval.util.adjust_intervals(ei, el, t_min=0.0, t_max=ri2.max())
    out["pwp"], out["pwr"], out["pwf"] = mir_eval.segment.pairwise(ri2, rl2, ei2, el2)
    out["so"], out["su"], out["sf"] = mir_eval.segment.nce(ri2, rl2, ei2, el2)
    # cal_acc, post_digit=3
    rt = [int(round(t, 3) * 1000) for t, _ in ref]
    et = [int(round(t, 3) * 1000) for t, _ in est]
    lo, hi = max(rt[0], et[0]), min(rt[-1], et[-1])
    points = sorted({lo, hi, *[t for t in rt if lo <= t <= hi], *[t for t in et if lo <= t <= hi]})
    total = score = 0
    for i in range(len(points) - 1):
        d = points[i + 1] - points[i]
        total += d
        if ref[bisect.bisect_right(rt, points[i]) - 1][1] == est[bisect.bisect_right(et, points[i]) - 1][1]:
            score += d
    out["acc"] = score / total
    # cal_iou
    rs = [(ref[i][0], ref[i + 1][0], ref[i][1]) for i in range(len(ref) - 1)]
    es = [(est[i][0], est[i + 1][0], est[i][1]) for i in range(len(est) - 1)]
    ious = {}
    for label in {s[2] for s in rs} | {s[2] for s in es}:
        a = [(s, e) for s, e, lab in rs if lab == label]
        b = [(s, e) for s, e, lab in es if lab == label]
        inter_d = sum(min(ea, eb) - max(sa, sb) for sa, ea in a for sb, eb in b if max(sa, sb) < min(ea, eb))
        ious[label] = (inter_d, sum(e - s for s, e in a) + sum(e - s for s, e in b) - inter_d)
    return {k: float(v) for k, v in out.items()}, ious


def summary(songs: list[tuple[dict[str, float], dict[str, tuple[float, float]]]]) -> dict[str, float]:
    """The script's eval_infer_summary: means over songs, IoU pooled per label and overall."""
    out = {k: float(np.mean([s[0][k] for s in songs])) for k in songs[0][0]}
    inter: defaultdict[str, float] = defaultdict(float)
    union: defaultdict[str, float] = defaultdict(float)
    for _, ious in songs:
        for label, (i, u) in ious.items():
            inter[label] += i
            union[label] += u
    out["iou"] = sum(inter.values()) / sum(union.values())
    out |= {f"iou_{label}": inter[label] / union[label] for label in inter}
    return out


def family_run(pairs: list[tuple[str, str]], subset: str = "HarmonixSet") -> dict[str, Any]:
    refs = [Reference(id=f"s{i}", line=i + 1, public={"context": subset}, answers=(r,))
            for i, (r, _) in enumerate(pairs)]
    preds = [Prediction(id=f"s{i}", line=i + 1, text=p) for i, (_, p) in enumerate(pairs)]
    family = SongForm({"subset": subset}, ScoringContext())
    scores = family.score(refs, preds, OUTPUTS)
    ones = np.ones((1, len(pairs)))
    return {name: float(family.aggregate(name, scores[name], ones)[0]) for name in OUTPUTS} | {
        f"item:{name}": scores[name].values for name in OUTPUTS} | {"unparsed": scores["unparsed"].values}


REF = "0.0000 intro\n10.2500 verse\n40.1234 pre-chorus\n55.0000 chorus\n90.5000 verse\n120.0000 bridge\n" \
      "150.0000 chorus\n185.7500 outro\n200.0000 silence\n203.4567 end\n"
REF2 = "0.2992 silence\n3.1000 inst\n20.0000 verse\n60.0000 chorus\n100.0000 inst\n130.0000 chorus\n170.0000 end\n"

# (messy answer, the MSA TXT it is read as)
MESSY = [
    # tidy, as SongFormer writes it: scored exactly as the script scores it
    ("0.000000 intro\n11.000000 verse\n54.200000 chorus\n91.000000 verse\n150.500000 chorus\n186.000000 outro\n"
     "203.500000 end", None),
    # unsorted lines, m:ss times, capitalised labels
    ("0:55.3 Chorus\n0:00 intro\n0:09.8 verse\n3:06 outro\n2:30 chorus\n1:30 verse\n2:00 bridge\n3:23.4 end",
     "0 intro\n9.8 verse\n55.3 chorus\n90 verse\n120 bridge\n150 chorus\n186 outro\n203.4 end"),
    # overlapping [start, end, label] segments, times past the song's end, a pre-chorus and an unknown label
    ('[[0, 12.0, "intro"], [10.0, 41.0, "verse"], [40.0, 56.0, "pre-chorus"], [55.5, 92.0, "chorus"], '
     '[92.0, 210.0, "guitar solo"]]',
     "0 intro\n10 verse\n40 pre-chorus\n55.5 chorus\n92 guitar_solo\n210 end"),
    # no end line (the annotated end is used), duplicate time (the later line kept), negative start
    ("-1.5 silence\n0 intro\n10 verse\n10 verse\n55 chorus\n200 outro\n250 outro",
     "0 intro\n10 verse\n55 chorus\n200 outro\n203.4567 end"),
    # Python tuples of (start, label) pairs with string times and an end marker in the middle
    ("[('0:00', 'intro'), ('0:10', 'verse'), ('1:00', 'chorus'), ('3:00', 'end'), ('3:10', 'outro')]",
     "0 intro\n10 verse\n60 chorus\n180 end"),
    # start-end-label lines and a chatty line
    ("Here is the structure:\n0.0 12.0 intro\n12.0 60.0 verse\n60.0 203.0 chorus",
     "0 intro\n12 verse\n60 chorus\n203 end"),
    # an answer that starts after the reference's end (cal_acc's 'end' == 'end' quirk gives ACC 1 here)
    ("204 chorus\n205 end", None),
]


def as_oracle_text(expected: str) -> str:
    # the oracle reads labels without spaces; the family keeps "guitar solo" as one unknown label
    return expected.replace("guitar_solo", "guitarsolo_unknown")


def test_reader_reads_messy_answers_as_documented() -> None:
    for answer, expected in MESSY:
        got = read_answer(answer, end_time=203.4567).msa
        want = load_msa(expected or answer)
        assert [(t, lab.replace(" ", "_")) for t, lab in got] == want, answer
    assert read_answer("I cannot hear the song.").msa == ()
    assert read_answer("[1, 2, 3]").msa == ()
    assert "times not in order; sorted" in read_answer(MESSY[1][0]).notes
    assert not read_answer(REF).notes


def test_family_equals_the_script_on_messy_answers() -> None:
    pairs = [(REF, answer) for answer, _ in MESSY] + [(REF2, "0 silence\n3 inst\n21 verse\n58 chorus\n170 end")]
    got = family_run(pairs)
    songs = [oracle_song(REF, as_oracle_text(expected or answer)) for answer, expected in MESSY]
    songs.append(oracle_song(REF2, "0 silence\n3 inst\n21 verse\n58 chorus\n170 end"))
    want = summary(songs)
    for key, value in want.items():
        if key == "iou_guitarsolo_unknown":
            continue
        assert got[key] == pytest.approx(value, abs=1e-9), key
    for key in songs[0][0]:
        np.testing.assert_allclose(got[f"item:{key}"], [s[0][key] for s in songs], rtol=0, atol=1e-9, err_msg=key)
    assert got["item:acc"][6] == 1.0 and got["item:hr3_f"][6] < 0.5  # the script's quirk, kept
    assert 0.3 < got["acc"] < 0.95 and 0.2 < got["hr05_f"] < 0.9  # the answers leave work to the metric


def test_unreadable_answer_scores_zero_and_counts_the_reference_union() -> None:
    got = family_run([(REF, "no idea"), (REF, REF)])
    assert got["unparsed"].tolist() == [1.0, 0.0]
    assert got["item:acc"].tolist() == [0.0, 1.0] and got["item:pwf"].tolist() == [0.0, 1.0]
    assert got["iou"] == pytest.approx(0.5, abs=1e-12)  # the same reference duration in both unions
    assert got["iou_verse"] == pytest.approx(0.5, abs=1e-12)


def test_items_of_the_other_subset_are_left_out() -> None:
    refs = [Reference(id="a", line=1, public={"context": "CN"}, answers=(REF,)),
            Reference(id="b", line=2, public={"context": "HarmonixSet"}, answers=(REF2,))]
    preds = [Prediction(id="a", line=1, text="0 intro\n203 end"), Prediction(id="b", line=2, text=REF2)]
    family = SongForm({"subset": "HarmonixSet"}, ScoringContext())
    scores = family.score(refs, preds, OUTPUTS)
    assert np.isnan(scores["acc"].values[0]) and scores["acc"].values[1] == 1.0
    assert family.aggregate("iou", scores["iou"], np.ones((1, 2)))[0] == 1.0


def released_references() -> list[dict]:
    log = ProblemLog(keep=10)
    rows = songform_reference_rows(shared_file("data", "songformbench", "songformbench_segments.jsonl"), log)
    assert not log, log
    return [record for _, record in rows]


def test_released_references_read_as_the_publishers_msa_files() -> None:
    records = released_references()
    assert len(records) == 300
    assert sum(r["context"] == "HarmonixSet" for r in records) == 200
    for record in records:
        folder = shared_file("data", "songformbench", "msa_txt", record["context"], f"{record['id']}.txt")
        assert load_msa(folder.read_text()) == load_msa(record["answer"])


@pytest.mark.slow
def test_each_reference_as_its_own_prediction_scores_as_the_script_does() -> None:
    records = released_references()
    for subset in ("HarmonixSet", "CN"):
        pairs = [(r["answer"], r["answer"]) for r in records if r["context"] == subset]
        got = family_run(pairs, subset)
        want = summary([oracle_song(r, p) for r, p in pairs])
        assert want["acc"] == 1.0 and want["sf"] == 1.0 and want["iou"] == 1.0
        for key, value in want.items():
            assert got[key] == value, (subset, key)


@pytest.mark.slow
def test_released_references_with_shifted_and_relabelled_answers() -> None:
    records = [r for r in released_references() if r["context"] == "CN"][:40]
    rng = np.random.default_rng(11)
    pairs = []
    for record in records:
        msa = load_msa(record["answer"])
        shifted = sorted({round(max(0.0, t + rng.normal(0, 1.5)), 3) for t, _ in msa[:-1]})
        labels = [OFFICIAL[int(rng.integers(0, 8))] if rng.random() < 0.3 else msa[min(i, len(msa) - 2)][1]
                  for i in range(len(shifted))]
        text = "".join(f"{t:.3f} {lab}\n" for t, lab in zip(shifted, labels)) + f"{msa[-1][0] + 1.25:.3f} end\n"
        pairs.append((record["answer"], text))
    got = family_run(pairs, "CN")
    want = summary([oracle_song(r, p) for r, p in pairs])
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-9), key
    assert 0.4 < got["acc"] < 0.95


def test_reference_file_errors_name_the_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "songformbench_segments.jsonl"
    good = {"id": "BC_1", "subset": "CN", "segments": [[0.0, 5.0, "intro"], [5.0, 9.0, "verse"]]}
    rows = [good, {**good, "id": "BC_2", "segments": [[0.0, 5.0, "intro"], [6.0, 9.0, "verse"]]},
            {**good, "id": "BC_3", "segments": [[0.0, 5.0, "Chorus"]]}, {**good, "id": "BC_4", "subset": "EN"}]
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    log = ProblemLog(keep=10)
    assert [r["id"] for _, r in songform_reference_rows(bad, log)] == ["BC_1"]
    assert [(p.line, p.field) for p in log.problems] == [(2, "segments[1]"), (3, "segments[0]"), (4, "subset")]


def test_an_answer_starting_at_the_reference_end_is_scored_as_one_starting_after_it() -> None:
    # the script's mir_eval call refuses the zero-length interval this clips to, and skips the song
    at_end = family_run([(REF, "203.4567 chorus\n210 end"), (REF, "204 chorus\n210 end")])
    after = oracle_song(REF, "204 chorus\n210 end")[0]
    for key in ("pwp", "pwr", "pwf", "so", "su", "sf"):
        assert at_end[f"item:{key}"][0] == pytest.approx(after[key], abs=1e-12), key
        assert at_end[f"item:{key}"][1] == pytest.approx(after[key], abs=1e-12), key


def test_a_predictions_folder_is_one_answer_per_txt_file(tmp_path: Path) -> None:
    folder = tmp_path / "est_txt"
    (folder / "CN").mkdir(parents=True)
    (folder / "HarmonixSet").mkdir()
    (folder / "CN" / "BC_1.txt").write_bytes(b"\xef\xbb\xbf0.000000 intro\r\n5.500000 chorus\r\n9.000000 end\r\n")
    (folder / "HarmonixSet" / "BHX_1.txt").write_text("0.0 intro\n5.0 end\n", encoding="utf-8")
    (folder / "BHX_2.txt").write_text("", encoding="utf-8")
    (folder / "notes.md").write_text("run 3\n", encoding="utf-8")
    (folder / "BHX_3.TXT").write_text("0.0 intro\n5.0 end\n", encoding="utf-8")  # the script's test is ".txt"
    log = ProblemLog(keep=10)
    rows = songform_prediction_rows(folder, log)
    assert rows == [(1, {"id": "BHX_2", "prediction": ""}),
                    (2, {"id": "BC_1", "prediction": "0.000000 intro\r\n5.500000 chorus\r\n9.000000 end\r\n"}),
                    (3, {"id": "BHX_1", "prediction": "0.0 intro\n5.0 end\n"})]
    assert read_answer(rows[1][1]["prediction"]).msa == ((0.0, "intro"), (5.5, "chorus"), (9.0, "end"))
    assert not log.problems
    assert [(w.file, w.line, w.kind) for w in log.warnings] == [
        ("est_txt", 0, "not_msa_txt"), ("est_txt/BHX_2.txt", 0, "empty_prediction"),
        ("est_txt/BHX_2.txt", 0, "unreadable_answer")]
    assert log.warnings[0].message.endswith('left out, as eval_infer_results.py leaves them out: "BHX_3.TXT", '
                                            '"notes.md"')


def test_a_predictions_folder_names_each_file_it_cannot_read(tmp_path: Path) -> None:
    folder = tmp_path / "est_txt"
    (folder / "CN").mkdir(parents=True)
    (folder / "BC_1.txt").write_text("0.0 intro\n5.0 end\n", encoding="utf-8")
    (folder / "CN" / "BC_1.txt").write_text("0.0 intro\n5.0 end\n", encoding="utf-8")
    (folder / "CN" / "BC_2.txt").write_bytes("0.0 intro\n4.0 verse\n9.0 Ende\n".encode("cp1252") + b"\xe9\n")
    (folder / "CN" / "BC_3.txt").write_text("1:05 Chorus\n0:00 intro\n3:30 end\n", encoding="utf-8")
    log = ProblemLog(keep=10)
    rows = songform_prediction_rows(folder, log)
    assert [record["id"] for _, record in rows] == ["BC_1", "BC_3"]
    assert [(p.file, p.line, p.kind) for p in log.problems] == [
        ("est_txt/CN/BC_1.txt", 0, "duplicate_id"), ("est_txt/CN/BC_2.txt", 4, "encoding")]
    assert 'id "BC_1" is also est_txt/BC_1.txt' in log.problems[0].message
    [warning] = log.warnings
    assert warning.file == "est_txt/CN/BC_3.txt" and "'Chorus' read as 'chorus'" in warning.message

    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "results.json").write_text("[]", encoding="utf-8")
    log = ProblemLog(keep=10)
    assert songform_prediction_rows(empty, log) == []
    assert [(p.file, p.line, p.kind) for p in log.problems] == [("empty", 0, "empty_file")]
    assert [w.kind for w in log.warnings] == ["not_msa_txt"]
