"""METEOR through NLTK's ``meteor_score``, as CMI-Bench's ``music_captioning`` calls it.

``meteor_score([wordpunct_tokenize(reference)], wordpunct_tokenize(prediction))`` with NLTK's
defaults (lower-casing, Porter stemmer, alpha 0.9, beta 3, gamma 0.5) per item, averaged over
items. NLTK's synonym stage needs WordNet 3.0; it is read from a local WordNet database
directory (Debian's ``wordnet-base`` installs it at ``/usr/share/wordnet``; ``SCORING_WORDNET_DIR``
names another; it is added to ``nltk.data.path``, the only folders NLTK's readers may open),
never downloaded. That package lacks the ``lexnames`` file NLTK's reader opens
at start; the 45 standard lexicographer file names are supplied in its place (METEOR never
reads them), and the mapping onto NLTK's downloadable WordNet (for multilingual look-ups) is
skipped. Synset look-ups are memoised per word: same values, fewer repeated reads.
"""

from __future__ import annotations

import io
import os
import threading
import warnings
from collections.abc import Collection, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, register_family
from scoring.task_types import Prediction, Reference
from scoring.versions import library_version

DEFAULT_WORDNET_DIR = "/usr/share/wordnet"
WORDNET_FILES = ("index.noun", "data.noun", "index.verb", "data.verb", "index.adj", "data.adj",
                 "index.adv", "data.adv", "noun.exc", "verb.exc", "adj.exc", "adv.exc")
LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact", "noun.attribute",
    "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling", "noun.food",
    "noun.group", "noun.location", "noun.motive", "noun.object", "noun.person", "noun.phenomenon",
    "noun.plant", "noun.possession", "noun.process", "noun.quantity", "noun.relation", "noun.shape",
    "noun.state", "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition",
    "verb.communication", "verb.competition", "verb.consumption", "verb.contact", "verb.creation",
    "verb.emotion", "verb.motion", "verb.perception", "verb.possession", "verb.social", "verb.stative",
    "verb.weather", "adj.ppl",
)
_POS_NUMBER = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
_READERS: dict[str, Any] = {}
_READERS_LOCK = threading.Lock()


def wordnet_dir() -> Path:
    """The WordNet database directory: ``$SCORING_WORDNET_DIR`` or ``/usr/share/wordnet``."""
    return Path(os.environ.get("SCORING_WORDNET_DIR") or DEFAULT_WORDNET_DIR)


def wordnet_missing(directory: Path) -> str | None:
    """Why ``directory`` cannot serve as WordNet, or None."""
    missing = [name for name in WORDNET_FILES if not (directory / name).is_file()]
    if missing:
        return (f"METEOR needs the WordNet 3.0 database in {directory} (Debian/Ubuntu: apt-get install "
                f"wordnet-base; or set SCORING_WORDNET_DIR); missing: {', '.join(missing)}")
    return None


def _lexnames() -> str:
    return "".join(f"{i:02d}\t{name}\t{_POS_NUMBER[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))


def load_wordnet(directory: Path) -> Any:
    """NLTK's ``WordNetCorpusReader`` on a local WordNet database (loaded once per process)."""
    key = str(directory)
    with _READERS_LOCK:
        if key not in _READERS:
            _READERS[key] = _MemoWordNet(_make_reader(directory))
        return _READERS[key]


def _make_reader(directory: Path) -> Any:
    import nltk.data
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    if str(directory) not in nltk.data.path:  # NLTK opens corpora only under its data path
        nltk.data.path.append(str(directory))

    class LocalWordNet(WordNetCorpusReader):
        def open(self, file: str) -> Any:
            if file == "lexnames" and not (directory / "lexnames").is_file():
                return io.StringIO(_lexnames())
            return super().open(file)

        def map_wn(self, version: str = "wordnet") -> None:
            return None  # the mapping to NLTK's own WordNet serves multilingual (OMW) look-ups only

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": English only
        return LocalWordNet(str(directory), None)


class _MemoWordNet:
    """The reader with ``synsets`` memoised (all that METEOR calls)."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self.synsets = lru_cache(maxsize=200_000)(reader.synsets)

    def get_version(self) -> str:
        return str(self.reader.get_version())


@register_family
class Meteor(MetricFamily):
    """Per-item NLTK METEOR on ``wordpunct_tokenize`` tokens, averaged over items."""

    name: ClassVar[str] = "nltk_meteor"
    outputs: ClassVar[tuple[str, ...]] = ("meteor",)
    task_types: ClassVar[tuple[str, ...]] = ("generation",)

    def unavailable_reason(self) -> str | None:
        return wordnet_missing(wordnet_dir())

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        from nltk.tokenize import wordpunct_tokenize
        from nltk.translate.meteor_score import meteor_score

        wordnet = load_wordnet(wordnet_dir())
        values = [
            meteor_score([wordpunct_tokenize(answer) for answer in reference.answers],
                         wordpunct_tokenize(prediction.text), wordnet=wordnet)
            for reference, prediction in zip(references, predictions)
        ]
        return {"meteor": ItemScores(np.array(values, dtype=float))}

    def signature_fields(self, output: str) -> dict[str, str]:
        reason = wordnet_missing(wordnet_dir())
        return {"impl": "nltk-meteor_score", "tok": "wordpunct", "alpha": "0.9", "beta": "3", "gamma": "0.5",
                "stemmer": "porter", "multi_ref": "max",
                "wordnet": "absent" if reason else load_wordnet(wordnet_dir()).get_version(),
                "nltk": library_version("nltk")}
