"""Fields a paper names among its phrases: "we study reinforcement learning".

A phrase that is the name of a field of the taxonomy is a link to that field,
not a method; see :func:`with_named_fields`.
"""

from __future__ import annotations

from kg.lexicon import FIELD_HEADS, head, looks_like_name, variant_key
from kg.model import Kind, Mention, Role
from kg.taxonomy import Taxonomy

__all__ = ["field_names", "with_named_fields", "DISCIPLINE_HEADS"]

#: Heads of field names that name a discipline, never a task a paper addresses.
DISCIPLINE_HEADS = frozenset({"science", "theory"})


def field_names(taxonomy: Taxonomy) -> dict[str, str]:
    """Phrases that name a field of the taxonomy -> that field's key.

    A field's preferred label, and an alt label named the way fields are
    ("deep reinforcement learning", "natural language processing": a head of
    :data:`kg.lexicon.FIELD_HEADS`); other alt labels ("SGD", "Adam") are
    methods a field is known by, not its name.
    """
    out: dict[str, str] = {}
    for f in taxonomy.fields:
        out.setdefault(variant_key(f.label), f.key)
    for f in taxonomy.fields:
        for alt in f.alt_labels:
            if " " in alt and head(alt) in FIELD_HEADS and not looks_like_name(alt):
                out.setdefault(variant_key(alt), f.key)
    return out


def with_named_fields(
    mentions: list[Mention], fields: list[Mention], names: dict[str, str]
) -> list[Mention]:
    """A method that is a field's name ("reinforcement learning") is that field.

    The field is linked with the phrase's confidence and sentence, unless the
    paper already has it. A problem keeps its kind ("speech recognition" is a
    field and the task a paper addresses), unless the field's name is a
    discipline's ("cognitive science", "learning theory"), which no paper
    addresses as a problem; the paper's other mentions are kept as they are.

    >>> names = {variant_key("cognitive science"): "cogsci",
    ...          variant_key("speech recognition"): "asr"}
    >>> found = [Mention("cognitive science", Role.ADDRESSES, 0.6, "s"),
    ...          Mention("speech recognition", Role.ADDRESSES, 0.7, "s")]
    >>> [(m.text, m.role.value) for m in with_named_fields(found, [], names)]
    [('speech recognition', 'addressesProblem'), ('cogsci', 'inField')]
    """
    have = {m.text for m in fields}
    out, added = [], []
    for m in mentions:
        key = names.get(variant_key(m.text))
        field_name = m.kind is Kind.METHOD or (
            m.kind is Kind.PROBLEM and head(m.text) in DISCIPLINE_HEADS
        )
        if key is None or not field_name:
            out.append(m)
        elif key not in have:
            have.add(key)
            # The field is as likely as the phrase is the paper's (not as a reader
            # would judge it a method or problem).
            added.append(Mention(key, Role.IN_FIELD, m.strength, m.sentence))
    return out + fields + added
