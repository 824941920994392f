"""A split cannot hide labels that its published inputs give away: RUL-MuChoMusic's leave-one-out option
sets, MuChoMusic's seeded option order and items whose answers another split shows are refused as hidden-label
references, by the import command and by the maintainers' split form, before anything is stored; references
that keep their answers hidden import as before."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from leaderboard.models import ReferenceItem, Split
from tests.helpers.mcq_data import muchomusic_items, write_muchomusic_csv
from tests.helpers.shared import shared_file

pytestmark = pytest.mark.django_db


def _import(*args: str) -> str:
    out = io.StringIO()
    call_command("import_references", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_rul_muchomusic_cannot_be_imported_as_a_hidden_split_and_the_split_stays_as_it_was() -> None:
    path = shared_file("data", "rul-muchomusic", "RUL-MuchoMusic.json")
    with pytest.raises(CommandError, match=r"labels cannot be hidden: 1187 of 1187 items' option sets differ"):
        _import("rul-muchomusic", "private", str(path), "--format", "rul-muchomusic", "--hidden-labels")
    split = Split.objects.get(benchmark__name="rul-muchomusic", name="private")
    assert not split.hidden_labels and split.n_items == 0
    assert not ReferenceItem.objects.filter(split=split).exists()


def test_muchomusic_in_the_seeded_order_is_refused_as_hidden_and_a_private_order_is_imported(tmp_path) -> None:
    items = muchomusic_items(8, seed=9)
    write_muchomusic_csv(items, tmp_path / "muchomusic.csv")
    with pytest.raises(CommandError, match="seeded option order"):
        _import("muchomusic", "private", str(tmp_path / "muchomusic.csv"), "--format", "muchomusic",
                "--hidden-labels")
    (tmp_path / "own-order.json").write_text(json.dumps(items))
    report = _import("muchomusic", "private", str(tmp_path / "own-order.json"), "--format", "muchomusic",
                     "--hidden-labels")
    assert "8 items imported" in report
    split = Split.objects.get(benchmark__name="muchomusic", name="private")
    assert split.hidden_labels and split.n_items == 8


def test_the_split_form_refuses_to_hide_labels_its_references_give_away(tmp_path) -> None:
    path = shared_file("data", "rul-muchomusic", "RUL-MuchoMusic.json")
    _import("rul-muchomusic", "public", str(path), "--format", "rul-muchomusic")
    split = Split.objects.get(benchmark__name="rul-muchomusic", name="public")
    admin = get_user_model().objects.create_superuser("root-admin", "root@example.org", "pw-for-tests-only")
    client = Client()
    client.force_login(admin)
    url = reverse("admin:leaderboard_split_change", args=[split.pk])
    data = {"benchmark": split.benchmark_id, "name": split.name, "title": split.title, "description": "",
            "hidden_labels": "on", "accepting_submissions": "on"}
    response = client.post(url, data)
    assert response.status_code == 200  # the form again, with the reason
    assert "labels cannot be hidden" in response.content.decode()
    split.refresh_from_db()
    assert not split.hidden_labels
    data.pop("hidden_labels")
    data["title"] = "Public RUL"
    assert client.post(url, data).status_code == 302  # other changes save as before
    split.refresh_from_db()
    assert split.title == "Public RUL" and not split.hidden_labels


def test_items_a_public_split_shows_cannot_be_hidden_elsewhere_nor_hidden_items_made_public(tmp_path) -> None:
    items = muchomusic_items(8, seed=11)
    (tmp_path / "own-order.json").write_text(json.dumps(items))
    _import("muchomusic", "private", str(tmp_path / "own-order.json"), "--format", "muchomusic", "--hidden-labels")
    write_muchomusic_csv(items, tmp_path / "muchomusic.csv")
    with pytest.raises(CommandError, match=r"8 of these items are items of the hidden split muchomusic/private"):
        _import("muchomusic", "public", str(tmp_path / "muchomusic.csv"), "--format", "muchomusic")
    assert Split.objects.get(benchmark__name="muchomusic", name="public").n_items == 0
    Split.objects.filter(benchmark__name="muchomusic", name="private").update(hidden_labels=False)
    _import("muchomusic", "public", str(tmp_path / "muchomusic.csv"), "--format", "muchomusic")
    with pytest.raises(CommandError, match=r"8 of its items are items of muchomusic/public, which shows their"):
        _import("muchomusic", "private", str(tmp_path / "own-order.json"), "--format", "muchomusic",
                "--force", "--hidden-labels")
    assert not Split.objects.get(benchmark__name="muchomusic", name="private").hidden_labels


def test_an_already_hidden_split_keeps_its_other_settings_editable() -> None:
    path = shared_file("data", "rul-muchomusic", "RUL-MuchoMusic.json")
    _import("rul-muchomusic", "old", str(path), "--format", "rul-muchomusic")
    Split.objects.filter(benchmark__name="rul-muchomusic", name="old").update(hidden_labels=True)  # before the check
    split = Split.objects.get(benchmark__name="rul-muchomusic", name="old")
    admin = get_user_model().objects.create_superuser("root-admin", "root@example.org", "pw-for-tests-only")
    client = Client()
    client.force_login(admin)
    data = {"benchmark": split.benchmark_id, "name": split.name, "title": "Renamed", "description": "",
            "hidden_labels": "on", "accepting_submissions": "on"}
    assert client.post(reverse("admin:leaderboard_split_change", args=[split.pk]), data).status_code == 302
    split.refresh_from_db()
    assert split.title == "Renamed" and split.hidden_labels


def _mmau_copy(tmp_path, name: str) -> str:
    """The released MMAU test-mini file with every id renamed and every item's options in another order."""
    records = json.loads(shared_file("data", "mmau", "mmau-test-mini.json").read_text(encoding="utf-8"))
    for n, record in enumerate(records):
        record["id"] = f"private-{n}"
        record["choices"] = list(reversed(record["choices"]))
    path = tmp_path / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return str(path)


def test_the_public_mmau_release_cannot_be_a_hidden_split_under_its_ids_or_others(tmp_path) -> None:
    release = str(shared_file("data", "mmau", "mmau-test-mini.json"))
    reason = (r"labels cannot be hidden: 1000 of 1000 items are, by content \(question, options, audio\), items of "
              r"the public release github.com/Sakshi113/MMAU mmau-test-mini.json @ f0a4a97d")
    with pytest.raises(CommandError, match=reason):
        _import("mmau", "private", release, "--format", "mmau", "--hidden-labels")
    with pytest.raises(CommandError, match=reason):
        _import("mmau", "private", _mmau_copy(tmp_path, "our-own-set.json"), "--format", "mmau", "--hidden-labels")
    split = Split.objects.get(benchmark__name="mmau", name="private")
    assert not split.hidden_labels and split.n_items == 0
    report = _import("mmau", "test-mini", release, "--format", "mmau")  # public, as released: imported
    assert "1000 items imported" in report


def test_hidden_items_copied_under_other_ids_cannot_be_made_public(make_split, tmp_path) -> None:
    from tests.helpers.datagen import jamendo_references

    hidden = jamendo_references(4, seed=21)
    make_split("jamendo-mt-qa", "hidden-qa", hidden, hidden=True)
    copies = [dict(r, id=f"copy-{n}", pair_id=f"copy-pair-{n}") for n, r in enumerate(hidden[:6])]
    path = tmp_path / "copies.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in copies), encoding="utf-8")
    with pytest.raises(CommandError, match=r"6 of these items are items of the hidden split jamendo-mt-qa/hidden-qa"):
        _import("jamendo-mt-qa", "full", str(path))
    assert Split.objects.get(benchmark__name="jamendo-mt-qa", name="full").n_items == 0
    fresh = [dict(r, id=f"other-{n}", audio1=f"other_{n}.mp3") for n, r in enumerate(copies)]  # other audio
    path.write_text("".join(json.dumps(r) + "\n" for r in fresh), encoding="utf-8")
    assert "6 items imported" in _import("jamendo-mt-qa", "full", str(path))


def test_a_hidden_split_made_before_the_check_is_flagged_to_maintainers(tmp_path) -> None:
    release = str(shared_file("data", "mmau", "mmau-test-mini.json"))
    _import("mmau", "old-hidden", release, "--format", "mmau")
    Split.objects.filter(benchmark__name="mmau", name="old-hidden").update(hidden_labels=True)  # before the check
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 hidden split gives its labels away"):
        call_command("audit_hidden_splits", stdout=out)
    assert "mmau/old-hidden" in out.getvalue() and "public release" in out.getvalue()
    Split.objects.filter(benchmark__name="mmau", name="old-hidden").update(hidden_labels=False)
    out = io.StringIO()
    call_command("audit_hidden_splits", stdout=out)
    assert "no hidden split gives its labels away" in out.getvalue()
