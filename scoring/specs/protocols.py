"""The protocol a number was measured under: what has to be equal for two numbers to be ranked together.

A value computed here carries its protocol in its signature; a value printed in a paper carries the protocol its
table declares (``leaderboard/baselines/*.json``, each table's ``protocol``). Four fields tell them apart:

* ``implementation``: the scoring code. A profile name of the benchmark (``m2ugen-evaluator``,
  ``mmau-string-match``) says it is the code this site runs under that profile; anything else names other code.
* ``parser``: a step that maps free-form answers before that code scores them (``none``, or e.g. MMAU's
  official board's ``GPT-4o (prompt unreleased)``).
* ``reference``: the gold the value was measured against: :data:`THIS_SPLIT` (the split's own items and labels)
  or another version (``MMAU v1 (Oct 2024)``).
* ``embedding``: for BERTScore columns, the model and layer (``roberta-large L17``); empty elsewhere.

The scale is not a field: values on another scale are moved onto the column's or left out, saying why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from scoring.signature import Signature
from scoring.specs.base import BenchmarkSpec, split_column

THIS_SPLIT = "this split's"
NO_PARSER = "none"
EMBEDDED = ("bertscore_",)  # column keys whose numbers depend on an embedding model
TABLE_FIELDS = ("implementation", "parser", "reference")
# families whose columns are this site's own definition of a protocol (no publisher's script): their implementation
SITE_DEFINED = {"tag_set_f1": "site tag-set micro-F1", "exact_pitch": "site exact MIDI pitch"}
MAPPED = ("mcq_mapped",)  # families whose answers an LLM maps onto an option before the publisher's matcher


@dataclass(frozen=True)
class Protocol:
    implementation: str
    parser: str = NO_PARSER
    reference: str = THIS_SPLIT
    embedding: str = ""

    def as_json(self) -> dict[str, str]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def embedded(key: str) -> bool:
    """Whether a column's numbers depend on an embedding model (BERTScore's)."""
    return key.startswith(EMBEDDED)


def embedding_name(model: str, layer: str | int) -> str:
    """``roberta-large L17``: a model by its last path part, and the layer its embeddings come from."""
    return f"{str(model).rstrip('/').rsplit('/', 1)[-1]} L{layer}" if model else ""


def site_protocol(spec: BenchmarkSpec, key: str, signature: str, bertscore: tuple[str, str] | None) -> Protocol:
    """The protocol of a column computed here: the benchmark's official profile (or, for a family of
    :data:`SITE_DEFINED`, this site's definition) on the split's own gold, no answer mapping; for BERTScore the
    model and layer its signature names (or, for a column without entries, ``bertscore``: the deployment's
    configured model and layer, None when it computes none)."""
    embedding = ""
    if embedded(key):
        named = Signature.parse(signature).as_dict()
        model, layer = (named["model"], named.get("layer", "")) if named.get("model") else (bertscore or ("", ""))
        embedding = embedding_name(model, layer) or "not computed here"
    family = next((m.family for p in spec.profiles for m in p.metrics if m.key == split_column(key)[0]), "")
    return Protocol(SITE_DEFINED.get(family, spec.official_profile), _parser(family, signature), THIS_SPLIT,
                    embedding)


def _parser(family: str, signature: str) -> str:
    """A column's answer-mapping step: ``none``, or for an LLM-mapped column the judge model and this site's
    prompt (its template hash), as its signature names them (``not computed here`` without entries)."""
    if family not in MAPPED:
        return NO_PARSER
    named = Signature.parse(signature).as_dict()
    if not named.get("judge_model"):
        return "LLM answer mapping, not computed here"
    return f"{named['judge_model']} with this site's prompt ({named.get('judge_template', '')})"


def table_protocol(table: Mapping[str, Any], key: str) -> Protocol:
    """The protocol of a published table's column ``key`` (its own ``protocol`` over the table's)."""
    declared = {**table["protocol"], **next((c.get("protocol", {}) for c in table["columns"] if c["key"] == key), {})}
    embedding = declared.get("embedding") or {}
    return Protocol(declared["implementation"], declared["parser"], declared["reference"],
                    embedding_name(embedding.get("model", ""), embedding.get("layer", "")) if embedded(key) else "")


def protocol_difference(printed: Protocol, column: Protocol, *, mapped: str = "mapped onto an option") -> str:
    """One line saying how a printed value's protocol differs from the column's (empty when they are equal);
    ``mapped`` says what a parser does to an answer (a free-form answer to a multiple-choice question: mapped onto an
    option; elsewhere: converted into what the scorer reads)."""
    parts = []
    if printed.implementation != column.implementation:
        parts.append(f"scored by {printed.implementation}; this column by the {column.implementation} profile")
    if printed.parser != column.parser:
        how = (f"answers first {mapped} by {printed.parser}" if printed.parser != NO_PARSER
               else f"raw answers, not {mapped}")
        parts.append(f"{how}; this column " + ("scores the raw answers" if column.parser == NO_PARSER
                                               else f"maps them by {column.parser}"))
    if printed.reference != column.reference:
        parts.append(f"gold {printed.reference}; this column uses {THIS_SPLIT} gold")
    if printed.embedding != column.embedding:
        parts.append(f"{printed.embedding} BERTScore; this column is {column.embedding}")
    return "; ".join(parts)


def table_protocol_problems(table: Mapping[str, Any]) -> list[str]:
    """What is wrong with a published table's protocol (empty when it is complete and well formed)."""
    declared = table.get("protocol")
    if not isinstance(declared, Mapping):
        return ["no protocol: every published table names its implementation, parser and reference"]
    problems = [f"protocol.{name} must be a non-empty string" for name in TABLE_FIELDS
                if not isinstance(declared.get(name), str) or not declared[name].strip()]
    problems += [f"protocol has an unknown field {name!r}" for name in declared
                 if name not in (*TABLE_FIELDS, "embedding")]
    columns = table.get("columns") or []
    for column in columns:
        extra = column.get("protocol", {})
        problems += [f"column {column.get('key')}: protocol has an unknown field {name!r}" for name in extra
                     if name not in (*TABLE_FIELDS, "embedding")]
        embedding = {**declared, **extra}.get("embedding")
        if embedded(str(column.get("key", ""))) and not (
                isinstance(embedding, Mapping) and embedding.get("model") and embedding.get("layer")):
            problems.append(f"column {column.get('key')}: a BERTScore column needs protocol.embedding "
                            "{model, layer}")
    return problems
