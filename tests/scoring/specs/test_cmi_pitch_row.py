"""The CMI-Bench NSynth pitch row: the publisher's accuracy stays the default sort, with this site's exact-pitch
column beside it, marked as the site's own protocol wherever the column is named."""

from __future__ import annotations

from typing import Any

from scoring.parsing import profile_parse_rule
from scoring.specs import get_benchmark
from scoring.specs.protocols import site_protocol


def test_the_publishers_accuracy_is_the_default_and_the_exact_pitch_column_is_the_sites() -> None:
    spec = get_benchmark("cmi-nsynth-pitch")
    profile = spec.profile()
    assert spec.default_sort == "accuracy" and profile.name == "cmi-evaluate"
    columns = {m.key: m for m in profile.metrics}
    assert list(columns) == ["accuracy", "pitch_accuracy"]
    publisher, site = columns["accuracy"], columns["pitch_accuracy"]
    assert (publisher.family, publisher.output, publisher.label) == ("cmi_label", "accuracy", "Accuracy")
    assert (site.family, site.output, site.label) == ("exact_pitch", "pitch_accuracy", "Exact pitch (site)")
    assert site.higher_is_better and site.scale == 1.0 and site.decimals == 4
    assert site.description.startswith("This site's exact-pitch protocol, not CMI-Bench's")
    assert "exact-pitch column (its own protocol, never ranked with the publisher's numbers)" in spec.description


def test_the_columns_protocols_and_the_parse_count_stay_apart() -> None:
    spec = get_benchmark("cmi-nsynth-pitch")
    assert site_protocol(spec, "accuracy", "", None).implementation == "cmi-evaluate"
    assert site_protocol(spec, "pitch_accuracy", "", None).implementation == "site exact MIDI pitch"
    rule = profile_parse_rule(spec.profile())
    assert rule is not None and rule.rule.startswith("get_multiclass_acc") and rule.reads_labels


def test_the_benchmarks_listing_shows_the_column(cli: Any) -> None:
    listed = cli.run("benchmarks")
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if line.startswith("cmi-nsynth-pitch "))
    assert row.split()[1:] == ["generation", "[cmi-evaluate]", "accuracy,", "pitch_accuracy"]
