"""Mentions from many papers -> canonical concepts and paper-concept links.

One concept for "SGD" and "stochastic gradient descent", for "LoRA", "LoRAs"
and "low-rank adaptation", for "non-convex" and "nonconvex": variants share a
key (case, hyphens, spaces and a plural ending ignored), and an acronym is
merged with the expansion a paper defines for it unless papers disagree on
what it stands for. This is the only stage that looks across papers.

A phrase a paper mentions but extraction did not keep (a weak mention, see
:class:`~kg.model.Mention`) becomes a link when at least one other paper
mentions the same concept: a term that recurs across abstracts is a concept,
the classic sign of termhood in corpus-based term extraction.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

from networkx.utils import UnionFind

from kg.concepts.hierarchy import with_broader
from kg.concepts.keys import slug, variant_key
from kg.lexicon import (
    KIND_NOUNS,
    STOP_WORDS,
    abbreviates,
    acronym_letters,
    is_acronym,
    is_subsequence,
    singular,
    spelt_from,
)
from kg.model import Concept, Kind, Link, Mention, Role
from kg.taxonomy import Taxonomy

__all__ = ["canonicalize", "MIN_PAPERS"]

Mentions = Mapping[str, Sequence[Mention]]

#: A weak mention becomes a link when this many papers (itself included) mention its concept.
MIN_PAPERS = 2
# The longest acronym that can abbreviate a phrase, as the longest a paper defines
# in parentheses (kg.lexicon.is_defined_acronym).
_LONGEST_ACRONYM = 16
# What a weak mention counts for, against a kept one, in a concept's kind.
_WEAK_VOTE = 0.5


@dataclass
class _Group:
    """What the papers say about one group of variant keys."""

    forms: Counter[str] = field(default_factory=Counter)  # surface forms, by use
    kinds: dict[Kind, float] = field(default_factory=lambda: defaultdict(float))  # weak: less
    acronyms: Counter[str] = field(default_factory=Counter)  # acronym forms, by use
    topics: Counter[str] = field(default_factory=Counter)  # topics its mentions are placed in


def canonicalize(mentions: Mentions, taxonomy: Taxonomy) -> tuple[list[Concept], list[Link]]:
    """Merge every paper's mentions into concepts and one link per paper-concept pair.

    Args:
        mentions: Mentions by paper id (as :meth:`kg.extract.Extractor.extract` returns).
        taxonomy: Where field mentions' keys are looked up.

    Returns:
        Concepts sorted by key, each with its broader concepts
        (:mod:`kg.concepts.hierarchy`, which may add some no paper links to),
        and links sorted by paper id then concept key.
    """
    meanings = _meanings(mentions)
    group_of = _grouping(meanings, _kind_noun_variants(mentions))
    papers_of: dict[str, set[str]] = defaultdict(set)
    for paper_id, ms in mentions.items():
        for m in ms:
            if m.role is not Role.IN_FIELD:
                papers_of[group_of(m)].add(paper_id)
    groups: dict[str, _Group] = defaultdict(_Group)
    best: dict[tuple[str, str], Mention] = {}
    for paper_id in sorted(mentions):
        for m in mentions[paper_id]:
            if m.role is Role.IN_FIELD:
                continue
            g = group_of(m)
            if not m.selected and len(papers_of[g]) < MIN_PAPERS:
                continue
            _tally(groups[g], m, meanings)
            slot = (paper_id, g)
            if slot not in best or _outranks(m, best[slot]):
                best[slot] = m

    concepts = _concepts(groups, taxonomy)
    links = [
        Link(
            paper_id,
            concepts[g].key,
            _role_for(m, concepts[g].kind),
            m.score,
            m.sentence,
            m.salience,
        )
        for (paper_id, g), m in best.items()
    ]
    by_key = {c.key: c for c in concepts.values()}
    links += _field_links(mentions, taxonomy, by_key)
    links.sort(key=lambda link: (link.paper_id, link.concept_key))
    topics = {concepts[g].key: _topic(groups[g].topics) for g in concepts if groups[g].topics}
    return _closed(with_broader(list(by_key.values()), taxonomy, topics), taxonomy), links


def _topic(votes: Counter[str]) -> str:
    """The topic most of a concept's mentions are placed in (the first key on a tie)."""
    return min(votes, key=lambda k: (-votes[k], k))


def _closed(concepts: list[Concept], taxonomy: Taxonomy) -> list[Concept]:
    """``concepts`` and every field their ``broader`` keys name, so that each key is a concept.

    A topic no paper's field links reach, or the area above a linked topic,
    is added as a field concept of its own (with no links).
    """
    by_key = {c.key: c for c in concepts}
    fields = {f.key: f for f in taxonomy.fields}
    wanted = [b for c in concepts for b in c.broader]
    while wanted:
        key = wanted.pop()
        if key in by_key or key not in fields:
            continue
        f = fields[key]
        broader = (f.broader,) if f.broader else ()
        by_key[key] = Concept(f.key, f.label, Kind.FIELD, f.alt_labels, broader)
        wanted.extend(broader)
    out = [replace(c, broader=tuple(b for b in c.broader if b in by_key)) for c in by_key.values()]
    return sorted(out, key=lambda c: c.key)


def _meanings(mentions: Mentions) -> dict[str, set[str]]:
    """The expansions each acronym is given across all papers (keys by variant)."""
    meanings: dict[str, set[str]] = defaultdict(set)
    for ms in mentions.values():
        for m in ms:
            if m.expansion:
                meanings[variant_key(m.text)].add(variant_key(m.expansion))
    _infer_meanings(mentions, meanings)
    return meanings


def _kind_noun_variants(mentions: Mentions) -> list[tuple[str, str]]:
    """Pairs of keys that name one concept with and without a kind noun.

    "Transformer model" and "transformer", "recommender systems" and
    "recommender": the head says what kind of thing the rest names, so the two
    are one concept when the corpus uses both forms.
    """
    keys = {
        variant_key(m.text): m.text
        for ms in mentions.values()
        for m in ms
        if m.role is not Role.IN_FIELD
    }
    pairs = []
    for key, text in keys.items():
        words = text.split()
        if len(words) > 1 and singular(words[-1]).lower() in KIND_NOUNS:
            bare = variant_key(" ".join(words[:-1]))
            if bare in keys and bare != key:
                pairs.append((key, bare))
    return pairs


def _grouping(  # type: ignore[no-untyped-def]
    meanings: Mapping[str, set[str]], variants: Sequence[tuple[str, str]] = ()
):
    """A function from a mention to its group: an acronym and its one meaning are one group,
    and so are the forms of a concept with and without a kind noun (``variants``).

    A group is named by the smallest variant key in it, so names do not depend
    on the order in which papers were read.
    """
    sets = UnionFind()
    for acr, expansions in meanings.items():
        if len(expansions) == 1:
            sets.union(acr, next(iter(expansions)))
    for a, b in variants:
        sets.union(a, b)
    name = {member: min(s) for s in sets.to_sets() for member in s}

    def group_of(m: Mention) -> str:
        key = variant_key(m.text)
        if m.expansion and len(meanings.get(key, ())) > 1:
            key = variant_key(m.expansion)  # an ambiguous acronym: trust the paper's expansion
        return name.get(key, key)

    return group_of


def _tally(group: _Group, m: Mention, meanings: Mapping[str, set[str]]) -> None:
    group.forms[m.text] += 1
    if m.expansion:
        group.forms[m.expansion] += 0  # known, but not a form the paper uses
        if len(meanings.get(variant_key(m.text), ())) == 1:
            group.acronyms[m.text] += 1
    elif is_acronym(m.text):
        group.acronyms[m.text] += 1
    group.kinds[m.kind] += 1 if m.selected else _WEAK_VOTE
    if m.topic:
        group.topics[m.topic] += 1


def _concepts(groups: Mapping[str, _Group], taxonomy: Taxonomy) -> dict[str, Concept]:
    """One concept per group, with a key unique among concepts and fields."""
    taken = {f.key for f in taxonomy.fields}
    concepts: dict[str, Concept] = {}
    for g in sorted(groups):
        group = groups[g]
        label = _preferred(group.forms, group.acronyms)
        kind = max(group.kinds.items(), key=lambda kv: (kv[1], kv[0] is Kind.METHOD))[0]
        key = slug(label) or "c-" + g[:12]
        while key in taken:
            key += "-" + kind.value[0]
        taken.add(key)
        alts = sorted(
            {f for f in group.forms if f.casefold() != label.casefold()},
            key=lambda f: (f.casefold(), f),
        )
        concepts[g] = Concept(key=key, label=label, kind=kind, alt_labels=tuple(alts))
    return concepts


def _infer_meanings(mentions: Mentions, meanings: dict[str, set[str]]) -> None:
    """Give an acronym no paper defines the phrase it abbreviates in the same paper.

    "LoRA" and "low-rank adaptation" in one abstract that never writes
    "low-rank adaptation (LoRA)" become one concept. Letters alone never join
    papers: an acronym in one paper and a phrase in another stay apart
    ("CVaR" is not "control variate"), and an acronym whose papers point to
    different phrases is left alone. Phrases are indexed by the initials of
    their content words, which an acronym's letters must contain in order, so
    only those are tried.
    """
    options: dict[str, set[str]] = defaultdict(set)
    for paper_id in sorted(mentions):
        phrases: dict[str, str] = {}
        acronyms: dict[str, str] = {}
        for m in mentions[paper_id]:
            if m.role is Role.IN_FIELD:
                continue
            if is_acronym(m.text):
                acronyms.setdefault(variant_key(m.text), m.text)
            elif " " in m.text:
                phrases.setdefault(variant_key(m.text), m.text)
        if not acronyms or not phrases:
            continue
        by_initials: dict[str, dict[str, str]] = defaultdict(dict)
        for k, phrase in phrases.items():
            by_initials[_initials(phrase)][k] = phrase
        for key, acronym in acronyms.items():
            if meanings.get(key):
                continue
            letters = acronym_letters(acronym)
            if len(letters) > _LONGEST_ACRONYM:
                continue  # a long name ("MongeAmpereEquation"), not an acronym of a phrase
            tried = [p for i in _ordered_subsets(letters) for p in by_initials.get(i, {}).items()]
            # the subsequence test is necessary and quick: it leaves 1 in 20 phrases to try
            options[key] |= {
                k
                for k, phrase in tried
                if is_subsequence(letters, spelt_from(phrase)) and abbreviates(acronym, phrase)
            }
    for key, found in options.items():
        if len(found) == 1:
            meanings[key] = found


def _initials(phrase: str) -> str:
    """First letters of a phrase's content words and hyphen parts: "low-rank adaptation" -> lra."""
    parts = [p for w in phrase.split() for p in re.split(r"[-/]", w) if p]
    content = parts[:1] + [p for p in parts[1:] if p.lower() not in STOP_WORDS]
    return "".join(p[0].lower() for p in content)


def _ordered_subsets(letters: str, most: int = 6) -> set[str]:
    """Every subsequence of ``letters`` that keeps its first letter, of at most ``most`` letters.

    These are the initials a phrase of at most ``most`` content words can have
    and still spell the acronym.

    >>> sorted(_ordered_subsets("abc"))
    ['a', 'ab', 'abc', 'ac']
    """
    out = {letters[:1]} if letters else set()
    for size in range(1, most):
        out |= {letters[0] + "".join(c) for c in combinations(letters[1:], size)}
    return out


def _outranks(a: Mention, b: Mention) -> bool:
    return (a.selected, a.role is Role.PROPOSES, a.score) > (
        b.selected,
        b.role is Role.PROPOSES,
        b.score,
    )


def _role_for(m: Mention, kind: Kind) -> Role:
    if not m.selected:
        return Role.MENTIONS  # linked for what other papers say, not for how this one uses it
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
    mentions: Mentions, taxonomy: Taxonomy, concepts: dict[str, Concept]
) -> list[Link]:
    """Field mentions become links to the taxonomy's fields (added as concepts once)."""
    links = []
    for paper_id, ms in mentions.items():
        for m in ms:
            if m.role is not Role.IN_FIELD:
                continue
            f = taxonomy.by_key(m.text)
            concepts.setdefault(
                f.key,
                Concept(
                    f.key, f.label, Kind.FIELD, f.alt_labels, (f.broader,) if f.broader else ()
                ),
            )
            links.append(Link(paper_id, f.key, Role.IN_FIELD, m.score, m.sentence))
    return links
