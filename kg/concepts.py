"""Mentions from many papers -> canonical concepts and paper-concept links.

One concept for "SGD" and "stochastic gradient descent", for "LoRA", "LoRAs"
and "low-rank adaptation", for "non-convex" and "nonconvex": variants share a
key (case, hyphens, spaces and a plural ending ignored), and an acronym is
merged with the expansion a paper defines for it unless papers disagree on
what it stands for. This is the only stage that looks across papers.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from kg.candidates import abbreviates, singular
from kg.fields import Taxonomy
from kg.model import Concept, Kind, Link, Mention, Role

__all__ = ["variant_key", "slug", "canonicalize"]


def variant_key(text: str) -> str:
    """The identity of a phrase up to case, hyphens, spacing and plural.

    >>> variant_key("Non-convex optimizations") == variant_key("nonconvex optimization")
    True
    >>> variant_key("LoRAs") == variant_key("LoRA")
    True
    """
    words = text.split()
    if words:
        words[-1] = singular(words[-1])
    return re.sub(r"[\W_]+", "", " ".join(words).casefold())


def slug(text: str) -> str:
    """An IRI-safe, readable local name.

    >>> slug("Clipped-SGD"), slug("heavy-tailed noise"), slug("Über-Netz")
    ('clipped-sgd', 'heavy-tailed-noise', 'uber-netz')
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _is_acronym(text: str) -> bool:
    return sum(c.isupper() for c in text) >= 2 and " " not in text


def canonicalize(
    mentions: Mapping[str, Sequence[Mention]], taxonomy: Taxonomy
) -> tuple[list[Concept], list[Link]]:
    """Merge every paper's mentions into concepts and one link per paper-concept pair.

    Args:
        mentions: Mentions by paper id (as :meth:`kg.extract.Extractor.extract` returns).
        taxonomy: Where field mentions' keys are looked up.

    Returns:
        Concepts sorted by key, and links sorted by paper id then concept key.
    """
    # Which expansions each acronym is given, across all papers.
    meanings: dict[str, set[str]] = defaultdict(set)
    for ms in mentions.values():
        for m in ms:
            if m.expansion:
                meanings[variant_key(m.text)].add(variant_key(m.expansion))

    _infer_meanings(mentions, meanings)
    groups = _UnionFind()
    for acr, expansions in meanings.items():
        if len(expansions) == 1:
            groups.union(acr, next(iter(expansions)))

    def group_of(m: Mention) -> str:
        key = variant_key(m.text)
        if m.expansion and len(meanings[key]) > 1:
            key = variant_key(m.expansion)  # an ambiguous acronym: trust the paper's expansion
        return groups.find(key)

    forms: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: dict[str, Counter[Kind]] = defaultdict(Counter)
    acronym_forms: dict[str, Counter[str]] = defaultdict(Counter)
    best: dict[tuple[str, str], Mention] = {}
    for paper_id in sorted(mentions):
        for m in mentions[paper_id]:
            if m.role is Role.IN_FIELD:
                continue
            g = group_of(m)
            forms[g][m.text] += 1
            if m.expansion:
                forms[g][m.expansion] += 0  # known, but not a form the paper uses
                if len(meanings[variant_key(m.text)]) == 1:
                    acronym_forms[g][m.text] += 1
            elif _is_acronym(m.text):
                acronym_forms[g][m.text] += 1
            kinds[g][m.kind] += 1
            slot = (paper_id, g)
            if slot not in best or _outranks(m, best[slot]):
                best[slot] = m

    concepts: dict[str, Concept] = {}
    key_of_group: dict[str, str] = {}
    for g in sorted(forms):
        label = _preferred(forms[g], acronym_forms[g])
        kind = max(kinds[g].items(), key=lambda kv: (kv[1], kv[0] is Kind.METHOD))[0]
        key = slug(label) or "c-" + g[:12]
        while key in concepts or key in {f.key for f in taxonomy.fields}:
            key += "-" + kind.value[0]
        alts = sorted(
            {f for f in forms[g] if f.casefold() != label.casefold()},
            key=lambda f: (f.casefold(), f),
        )
        concepts[key] = Concept(key=key, label=label, kind=kind, alt_labels=tuple(alts))
        key_of_group[g] = key

    links = []
    for (paper_id, g), m in best.items():
        concept = concepts[key_of_group[g]]
        links.append(Link(paper_id, concept.key, _role_for(m, concept.kind), m.score, m.sentence))

    links += _field_links(mentions, taxonomy, concepts)
    links.sort(key=lambda link: (link.paper_id, link.concept_key))
    return sorted(concepts.values(), key=lambda c: c.key), links


def _infer_meanings(
    mentions: Mapping[str, Sequence[Mention]], meanings: dict[str, set[str]]
) -> None:
    """Give an acronym no paper defines the one phrase in the corpus it abbreviates.

    "LoRA" in one paper and "low-rank adaptation" in another become one
    concept; an acronym that could stand for two phrases is left alone.
    """
    by_initial: dict[str, dict[str, str]] = defaultdict(dict)
    acronyms: dict[str, str] = {}
    for ms in mentions.values():
        for m in ms:
            if m.role is Role.IN_FIELD:
                continue
            if _is_acronym(m.text):
                acronyms.setdefault(variant_key(m.text), m.text)
            elif " " in m.text:
                by_initial[m.text[0].lower()].setdefault(variant_key(m.text), m.text)
    for key, acronym in sorted(acronyms.items()):
        if meanings.get(key):
            continue
        options = {
            k
            for k, phrase in by_initial[acronym[0].lower()].items()
            if abbreviates(acronym, phrase)
        }
        if len(options) == 1:
            meanings[key] = options


def _outranks(a: Mention, b: Mention) -> bool:
    return (a.role is Role.PROPOSES, a.score) > (b.role is Role.PROPOSES, b.score)


def _role_for(m: Mention, kind: Kind) -> Role:
    if kind is Kind.PROBLEM:
        return Role.ADDRESSES
    return Role.PROPOSES if m.role is Role.PROPOSES else Role.USES


def _preferred(forms: Counter[str], acronyms: Counter[str]) -> str:
    """The label people use: a defined acronym, else the commonest form, singular first."""
    pool = acronyms if acronyms else Counter({f: n for f, n in forms.items() if n}) or forms
    return min(
        pool,
        key=lambda f: (
            -pool[f],
            f.split()[-1] != singular(f.split()[-1]),  # prefer the singular form
            f[:1].isupper() and not f[1:2].isupper() and not acronyms,  # sentence-initial caps
            len(f),
            f,
        ),
    )


def _field_links(
    mentions: Mapping[str, Sequence[Mention]],
    taxonomy: Taxonomy,
    concepts: dict[str, Concept],
) -> list[Link]:
    links = []
    for paper_id, ms in mentions.items():
        for m in ms:
            if m.role is not Role.IN_FIELD:
                continue
            field = taxonomy.by_key(m.text)
            concepts.setdefault(
                field.key,
                Concept(field.key, field.label, Kind.FIELD, tuple(field.alt_labels), field.broader),
            )
            links.append(Link(paper_id, field.key, Role.IN_FIELD, m.score, m.sentence))
    return links
