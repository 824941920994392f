"""Runnable "run a model" examples, one per task type, shown on every starter kit page.

Each reads a split's ``inputs.jsonl``, finds every item's audio under a root folder (the layout of
``scoring.specs.audio``), asks ``model(audio_paths, prompt) -> str`` and writes ``predictions.jsonl``
in the benchmark's contract. The ``model`` in each file is a stand-in with a fixed or seeded answer: replace it.
Run one as ``python -m scoring.kit_examples.<task type> --benchmark NAME --inputs inputs.jsonl
--audio-root ROOT``.
"""
