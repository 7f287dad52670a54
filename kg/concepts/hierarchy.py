"""Broader concepts, derived from the concepts' own names by general rules.

A concept is an instance of a broader one when its name says so:

- **head and modifiers**: English noun phrases end with their head, so
  "latent-space LoRA merging" is a kind of "LoRA merging" (a head too generic
  to name a concept, such as "noise" or "results", is never a broader concept);
- **named variants**: a name inside a phrase, or a part of a hyphenated name,
  is what the phrase varies ("LoRA merging" -> "LoRA", "normalized STORM" ->
  "STORM", "Clipped-SGD" -> "SGD");
- **kind nouns**: "STORM method" is "STORM".

A broader concept that no paper names is created when at least two concepts
reach it, otherwise it would relate nothing, and when it is a phrase or a
name (a bare head such as "merging" is kept only if a paper names it as a
concept); it takes the kind of the concepts below it. Each concept points
only at its nearest broader concepts: one that another of them already leads
to is left to SKOS's transitivity.

>>> from kg.model import Kind
>>> cs = [Concept("a", "latent-space LoRA merging", Kind.METHOD),
...       Concept("b", "LoRA merging", Kind.METHOD), Concept("c", "LoRA", Kind.METHOD)]
>>> [(c.key, c.broader) for c in with_broader(cs)]
[('a', ('b',)), ('b', ('c',)), ('c', ())]
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from kg.concepts.keys import slug, variant_key
from kg.lexicon import GENERIC_NOUNS, KIND_NOUNS, STOP_WORDS, TOO_BROAD, looks_like_name, singular
from kg.model import Concept, Kind
from kg.taxonomy import Taxonomy

__all__ = ["with_broader", "broader_forms"]

#: A broader concept no paper names is created when this many concepts reach it.
MIN_REACHED = 2
#: ... and when its name is longer than this: a two-letter name that no paper
#: uses on its own ("AI" of "AI debate") is too ambiguous to be a concept.
MIN_CREATED_CHARS = 2


def broader_forms(label: str) -> list[str]:
    """The names ``label`` is directly an instance of, head first.

    >>> broader_forms("latent-space LoRA merging")
    ['LoRA merging', 'LoRA']
    >>> broader_forms("Clipped-SGD"), broader_forms("normalized STORM method")
    (['SGD'], ['normalized STORM', 'STORM method', 'STORM'])
    >>> broader_forms("heavy-tailed gradient noise"), broader_forms("CGM-based glucose prediction")
    (['gradient noise'], ['glucose prediction', 'CGM'])
    """
    return [form for form, _ in _direct(label)]


def _direct(label: str) -> list[tuple[str, bool]]:
    """Broader forms with whether a concept may be created for each.

    Dropping a generic head ("graph neural network" -> "graph neural") can leave
    a modifier, so that form only links to a concept that exists already.
    """
    words = label.split()
    out: dict[str, bool] = {}
    if len(words) >= 2:
        head = singular(words[-1]).lower()
        if head in KIND_NOUNS or head in GENERIC_NOUNS:
            out[" ".join(words[:-1])] = False  # "STORM method" is STORM
        if _keepable(" ".join(words[1:])):
            out[" ".join(words[1:])] = True
        for word in words:
            out.update(dict.fromkeys(_names(word), True))
    elif "-" in label:  # one hyphenated word: its named parts
        out.update(dict.fromkeys((p for p in _names(label) if p != label), True))
    return [(f, ok) for f, ok in out.items() if variant_key(f) != variant_key(label)]


def _names(word: str) -> list[str]:
    """The names a word holds: itself, or the named parts of "CGM-based", "Clipped-SGD"."""
    if not looks_like_name(word):
        return []
    parts = [p for p in word.split("-") if p]
    if len(parts) > 1 and not all(looks_like_name(p) for p in parts):
        return [p for p in parts if looks_like_name(p) and len(p) > 1]
    return [word] if len(word) > 1 else []


def _keepable(phrase: str) -> bool:
    """Whether a phrase can name a broader concept: not a lone generic or too broad word."""
    words = phrase.split()
    if not words or words[0].lower() in STOP_WORDS:
        return False
    if len(words) == 1:
        low = singular(words[0]).lower()
        if looks_like_name(words[0]):
            return len(words[0]) > 1
        return low not in TOO_BROAD and low not in GENERIC_NOUNS and len(low) > 3
    return not all(singular(w).lower() in GENERIC_NOUNS for w in words)


def with_broader(
    concepts: Sequence[Concept],
    taxonomy: Taxonomy | None = None,
    topics: Mapping[str, str] | None = None,
) -> list[Concept]:
    """The concepts with their ``broader`` keys, plus the broader concepts created for them.

    A concept whose name, or a broader form of it, is a label or alt label of
    a field of ``taxonomy`` is placed under that field ("value-based RL" under
    reinforcement learning) when no concept is nearer on that path. One whose
    name means a topic without naming it is placed under the topic ``topics``
    gives it ("3D content" under 3D generation, by embedding:
    :mod:`kg.extract.placement`), unless a broader concept of it leads there;
    a topic ``taxonomy`` does not hold is ignored.

    Args:
        concepts: Canonical concepts (fields pass through unchanged).
        taxonomy: The field taxonomy, for placement; its keys are never reused.
        topics: Concept key -> the taxonomy topic its name is close to.

    Returns:
        Every concept, sorted by key, plus the fields concepts are placed
        under; a created concept has no paper of its own.
    """
    own = [c for c in concepts if c.kind is not Kind.FIELD]
    fields = {c.key: c for c in concepts if c.kind is Kind.FIELD}
    known: dict[str, Concept] = {}
    for c in own:
        for form in (c.label, *c.alt_labels):
            known.setdefault(variant_key(form), c)
    placed = _field_forms(taxonomy) if taxonomy else {}
    taken = {c.key for c in concepts} | {f.key for f in (taxonomy.fields if taxonomy else ())}
    created = _created(own, known, taken)
    nodes = {**created, **known}
    direct = {c.key: _targets(c, nodes, placed) for c in (*own, *created.values())}
    named = set(placed.values())
    known_fields = {f.key for f in taxonomy.fields} if taxonomy else set()
    for key, topic in (topics or {}).items():
        # a topic reached through the concept's name already says where it belongs
        if topic not in known_fields or key not in direct:
            continue
        if not named & set(direct[key]) and topic not in direct[key]:
            direct[key].append(topic)
    out = [replace(c, broader=_nearest(direct, c.key)) for c in (*own, *created.values())]
    if taxonomy is not None:
        for key in sorted(set(placed.values()) & {k for ks in direct.values() for k in ks}):
            f = taxonomy.by_key(key)
            parent = (f.broader,) if f.broader else ()
            fields.setdefault(key, Concept(key, f.label, Kind.FIELD, f.alt_labels, parent))
    return sorted([*out, *fields.values()], key=lambda c: c.key)


def _field_forms(taxonomy: Taxonomy) -> dict[str, str]:
    """Variant key of every field label and alt label -> the field (narrowest first)."""
    out: dict[str, str] = {}
    for f in sorted(taxonomy.fields, key=lambda f: -len(taxonomy.ancestors(f.key))):
        for form in (f.label, *f.alt_labels):
            out.setdefault(variant_key(form), f.key)
    return out


def _closure(label: str) -> list[tuple[str, bool]]:
    """Every name ``label`` reaches through broader forms, nearest first, and if creatable."""
    seen: dict[str, bool] = {}
    frontier = _direct(label)
    while frontier:
        form, ok = frontier.pop(0)
        if form not in seen:
            seen[form] = ok and (looks_like_name(form) or " " in form)
            # what lies below a form that may not be created may not be either
            frontier += [(f, ok and below) for f, below in _direct(form)]
    return list(seen.items())


def _created(
    own: Sequence[Concept], known: dict[str, Concept], used: set[str]
) -> dict[str, Concept]:
    """Broader concepts no paper names that at least :data:`MIN_REACHED` concepts reach."""
    reached: dict[str, set[str]] = defaultdict(set)
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: dict[str, Counter[Kind]] = defaultdict(Counter)
    for c in own:
        for form, creatable in _closure(c.label):
            v = variant_key(form)
            if v not in known and creatable and len(form) > MIN_CREATED_CHARS:
                reached[v].add(c.key)
                forms[v][form] += 1
                kinds[v][c.kind] += 1
    created: dict[str, Concept] = {}
    for v in sorted(reached):
        if len(reached[v]) < MIN_REACHED:
            continue
        label = min(forms[v], key=lambda f: (-forms[v][f], f))
        kind = max(kinds[v].items(), key=lambda kv: (kv[1], kv[0] is Kind.METHOD))[0]
        key = slug(label) or "c-" + v[:12]
        while key in used:
            key += "-" + kind.value[0]
        used.add(key)
        created[v] = Concept(key, label, kind)
    return created


def _targets(c: Concept, nodes: dict[str, Concept], fields: dict[str, str]) -> list[str]:
    """For each direct broader form, the first concept along its path, else a field on it."""
    keys: list[str] = []
    own = next(
        (fields[variant_key(f)] for f in (c.label, *c.alt_labels) if variant_key(f) in fields), None
    )
    if own is not None:
        keys.append(own)  # the concept's own name is a field's label: "LLMs"
    for form in broader_forms(c.label):
        path = [form, *(f for f, _ in _closure(form))]
        target = next((nodes[variant_key(f)].key for f in path if variant_key(f) in nodes), None)
        if target is None:
            target = next((fields[variant_key(f)] for f in path if variant_key(f) in fields), None)
        if target is not None and target != c.key and target not in keys:
            keys.append(target)
    return keys


def _nearest(direct: dict[str, list[str]], key: str) -> tuple[str, ...]:
    """``key``'s direct targets, less those another target already leads to."""
    targets = [t for t in direct.get(key, []) if t != key]

    def leads(start: str, goal: str) -> bool:
        stack, seen = [start], set()
        while stack:
            k = stack.pop()
            for t in direct.get(k, []):
                if t == goal:
                    return True
                if t not in seen:
                    seen.add(t)
                    stack.append(t)
        return False

    return tuple(sorted(t for t in targets if not any(o != t and leads(o, t) for o in targets)))


def ancestors(concepts: Sequence[Concept]) -> Callable[[str], tuple[str, ...]]:
    """A function from a concept key to all its broader keys, nearest first (cached)."""
    broader = {c.key: c.broader for c in concepts}
    cache: dict[str, tuple[str, ...]] = {}

    def up(key: str) -> tuple[str, ...]:
        if key not in cache:
            out: dict[str, None] = {}
            for b in broader.get(key, ()):
                out[b] = None
                out.update(dict.fromkeys(up(b)))
            cache[key] = tuple(out)
        return cache[key]

    return up
