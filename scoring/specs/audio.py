"""Where each benchmark's audio comes from, and where its files must lie for the names in ``inputs.jsonl``.

Scoring never needs audio; running a model does. Every hosted benchmark has one :class:`AudioSource`
(:data:`AUDIO_SOURCES`, keyed by benchmark name: the rows below, and those a spec carries itself,
``BenchmarkSpec.audio_source``, added when it is registered): the publisher's dataset card or page, how to get the
files, their licence as the publisher states it (``NOT_STATED`` where it does not), and a layout that
turns an item's audio fields into paths relative to a root folder. Only what the publishers' READMEs,
dataset cards and code say is stated here; a layout the publisher does not fix is said to be this
site's convention.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

NOT_STATED = "not stated by the publisher"


@dataclass(frozen=True)
class AudioSource:
    """The audio of one benchmark: where to get it and where its files must lie under a root folder.

    ``fields`` are the ``inputs.jsonl`` fields that name audio (a string, or a list of them: one file
    each); ``pattern`` (a regular expression with named groups) splits a field's value, and ``layout``
    (a ``str.format`` template over ``value`` and those groups) is the file's path relative to the root.
    A leading ``./`` of a value is dropped. ``example`` is one path built from a real item of the
    benchmark (``""`` where no item file is at hand)."""

    name: str
    url: str
    how: str
    licence: str
    layout: str = "{value}"
    fields: tuple[str, ...] = ("audio",)
    pattern: str = ""
    notes: str = ""
    example: str = ""
    available: bool = True  # False: the publisher released no audio

    def paths(self, record: Mapping[str, Any]) -> list[str]:
        """The audio files of one ``inputs.jsonl`` record, relative to the root, in field order."""
        found: list[str] = []
        for name in self.fields:
            value = record.get(name)
            values = value if isinstance(value, list) else [value]
            found.extend(self.path(v) for v in values if isinstance(v, str) and v)
        return found

    def path(self, value: str) -> str:
        """One field value's file, relative to the root."""
        value = value.removeprefix("./")
        groups: dict[str, str] = {}
        if self.pattern:
            match = re.fullmatch(self.pattern, value)
            if match is None:
                return value
            groups = {k: v for k, v in match.groupdict().items() if v is not None}
        return self.layout.format(value=value, **groups)

    @property
    def examples(self) -> tuple[str, ...]:
        """The example path, as a tuple (empty where none is known)."""
        return (self.example,) if self.example else ()

    def layout_text(self) -> str:
        """The layout in words: ``ROOT/<layout>``, naming the fields it is built from."""
        shown = re.sub(r"\{(\w+)\}", lambda m: f"<{m.group(1)}>", self.layout)
        fields = " / ".join(self.fields)
        if "{value}" in self.layout:
            return f"ROOT/{shown}, <value> being the {fields} field of each item"
        return f"ROOT/{shown}, built from the {fields} field of each item"


_YOUTUBE_WINDOW = r"(?P<ytid>.+)\[(?P<start>[0-9.]+)-(?P<end>[0-9.]+)\]"

MUSICCAPS = AudioSource(
    name="Google MusicCaps (YouTube clips)",
    url="https://huggingface.co/datasets/google/MusicCaps",
    how=("YouTube ids: the dataset gives only ytid, start_s and end_s. Fetch each video with yt-dlp and cut the "
         "10-second window [start_s, end_s]; some videos are no longer on YouTube."),
    licence="CC BY-SA 4.0 (the dataset card, for the captions); the audio itself is not distributed.",
    layout="{ytid}.wav", pattern=_YOUTUBE_WINDOW,
    notes=("The audio field reads <ytid>[<start_s>-<end_s>]: the file is that 10-second window. The layout is this "
           "site's convention (the one CMI-Bench uses: MusicCaps/audio/<ytid>.wav)."),
    example="-0Gj8-vB1q4.wav",
)

CMI = AudioSource(
    name="CMI-Bench test audio (test_Data.zip)",
    url="https://huggingface.co/datasets/nicolaus625/CMI-bench",
    how=("Download test_Data.zip from the Hugging Face dataset nicolaus625/CMI-bench and unzip it. The "
         "publisher's inference scripts open '../testdata/' + audio_path, so ROOT is the folder they call "
         "testdata, holding data/."),
    licence=("CC BY 4.0 (CMI-Bench); every underlying dataset keeps its own licence (GTZAN, Ballroom, DSing, "
             "emoMusic, VocalSet, NSynth, Song Describer, MusicCaps, Guzheng, MTG-Jamendo CC BY-NC-SA 4.0, "
             "MagnaTagATune, GiantSteps)."),
    notes=("The item id ends in [start:end]: the seconds of the file the task is about (end -1: to the end of the "
           "file)."),
)

_DEEPRESONANCE = AudioSource(
    name="DeepResonance test sets (Sony/DeepResonance_data_models)",
    url="https://huggingface.co/datasets/Sony/DeepResonance_data_models",
    how=("Download the test set from the Hugging Face dataset Sony/DeepResonance_data_models; DeepResonance's test "
         "code reads each set's audio from its own folder (e.g. data/music4way/test/audios)."),
    licence=NOT_STATED,
    notes="The file names come from the set's own test file; no item file of these sets is hosted here yet.",
)

AUDIO_SOURCES: dict[str, AudioSource] = {
    "dialbgm": AudioSource(
        name="DialBGM candidate clips (not released)",
        url="",
        how=("None: the authors released no data or code. The candidates are MusicCaps clips; their references are "
             "imported by a maintainer."),
        licence="Clips: MusicCaps (CC BY-SA 4.0); dialogues: DailyDialog (CC BY-NC-SA 4.0).",
        layout="{value}.wav", fields=("candidates",),
        notes="Models that rank from captions use the candidate_captions field instead of audio.",
        available=False,
    ),
    "jamendo-mt-qa": AudioSource(
        name="Jamendo-QA audio (gated Hugging Face dataset)",
        url="https://huggingface.co/datasets/m-a-a-p/Jamendo-QA",
        how=("Accept the terms on the Jamendo-QA dataset page, run huggingface-cli login, then in a clone of "
             "github.com/MAAP-LAB/Jamendo-MT-QA: python download_data.py --mode all (ROOT is its data/ folder)."),
        licence="Creative Commons via the Jamendo platform, research use only (repository README; the dataset card "
                "has the full terms).",
        layout="audio/{value}.wav", fields=("audio1", "audio2"),
        notes="Each item names two tracks: audio1 and audio2, in that order.",
        example="audio/rnb_10Days.wav",
    ),
    "musicqa": AudioSource(
        name="MusicQA (MU-LLaMA) evaluation clips",
        url="https://huggingface.co/datasets/mu-llama/MusicQA",
        how=("Download the Hugging Face dataset mu-llama/MusicQA. The MU-LLaMA and M2UGen evaluators open "
             "MusicQA/audios/<audio_name>, so ROOT is that MusicQA folder."),
        licence="MIT (the dataset card); the clips come from MTG-Jamendo and MusicCaps, whose terms apply.",
        layout="audios/{value}",
        example="audios/012542.wav",
    ),
    "musiccaps": MUSICCAPS,
    "lp-musiccaps": replace(
        MUSICCAPS,
        notes=(f"{MUSICCAPS.notes} LP-MusicCaps scores the 2,839 test clips its authors could crawl "
               "(seungheondoh/LP-MusicCaps-MC, is_crawled)."),
    ),
    "mmau": AudioSource(
        name="MMAU audio (test-mini-audios, test-audios)",
        url="https://huggingface.co/datasets/gamma-lab-umd/MMAU-test-mini",
        how=("Download the test-mini (or test) audio archive linked from github.com/Sakshi113/MMAU (Hugging Face "
             "gamma-lab-umd/MMAU-test-mini and MMAU-test, or the README's Google Drive links) and extract it "
             "in ROOT."),
        licence="Apache-2.0 (the repository); the audio's own terms are not stated by the publisher.",
        notes="The audio field is the publisher's audio_id, e.g. ./test-mini-audios/<id>.wav.",
        example="test-mini-audios/3fe64f3d-282c-4bc8-a753-68f8f6c35652.wav",
    ),
    "muchomusic": AudioSource(
        name="MuChoMusic clips (Song Describer and MusicCaps)",
        url="https://doi.org/10.5281/zenodo.12709974",
        how=("The release (Zenodo, Hugging Face mulab-mir/muchomusic) holds the questions, not the audio; its "
             "prepare_prompts.py writes an audio_path per item under data/ (e.g. data/sdd/audio/...). Where to get "
             "the clips is not stated by the publisher: they are Song Describer and MusicCaps clips."),
        licence="CC BY-SA 4.0 (the questions); the clips keep their datasets' terms.",
        notes=("Inputs built from muchomusic.csv carry no audio field: the track id before '::' in the item id names "
               "the clip (a Song Describer number or a MusicCaps YouTube id)."),
        example="data/sdd/audio/00/415600.2min.mp3",
    ),
    "mmar": AudioSource(
        name="MMAR audio (Hugging Face BoJack/MMAR)",
        url="https://huggingface.co/datasets/BoJack/MMAR",
        how="Download the audio from the Hugging Face dataset BoJack/MMAR and extract it in ROOT.",
        licence="CC BY-NC 4.0 (the dataset card): non-commercial, with attribution.",
        notes="The audio field is the publisher's audio_path, e.g. ./audio/<clip>.wav.",
        example="audio/qx8hrhBZJ98_00-01-32_00-02-02.wav",
    ),
    "rul-muchomusic": AudioSource(
        name="RUL-MuChoMusic audio (Hugging Face yongyizang/RUListening)",
        url="https://huggingface.co/datasets/yongyizang/RUListening",
        how=("Download the dataset yongyizang/RUListening. The publisher's evaluation script opens "
             "<audio_dir>/<question id>.mp3, so ROOT is that audio folder."),
        licence=f"Repository MIT; questions from MuChoMusic (CC BY-SA 4.0); the audio's terms are {NOT_STATED}.",
        layout="{value}.mp3", fields=("id",),
        notes="Items have no audio field: the item id (the question id) names the file.",
        example="1740.mp3",
    ),
    **{name: _DEEPRESONANCE for name in (
        "music4way-musiccaps", "music4way-mi2t", "music4way-mv2t", "music4way-any2t", "gtzan", "musicnet",
        "musicinstruct-long", "musicinstruct-short", "mtg-jamendo")},
}

DEMO = AudioSource(
    name="Demo split (generated by this site)",
    url="",
    how="None: the site's demo loader invents the items; their clip and track names point at no audio.",
    licence="–",
    notes="Use the benchmark's real split to run a model.",
    available=False,
)


def audio_source(benchmark: str, *, demo: bool = False) -> AudioSource:
    """The benchmark's audio source (the demo's for a generated demo split); ``KeyError`` when it has none."""
    if demo:
        return DEMO
    try:
        return AUDIO_SOURCES[benchmark]
    except KeyError:
        raise KeyError(f"benchmark {benchmark!r} has no audio source; add a row to scoring.specs.audio.AUDIO_SOURCES"
                       ) from None
