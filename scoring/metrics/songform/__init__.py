"""SongFormBench's song structure: the family (:mod:`.family`), reading answers into SongFormer's MSA list
(:mod:`.answers`), the publisher's files (:mod:`.reader`) and the benchmark (:mod:`.spec`, imported by
``scoring.specs``, never here). What the columns are: CARD.md."""

from scoring.metrics.songform.family import SongForm

__all__ = ["SongForm"]
