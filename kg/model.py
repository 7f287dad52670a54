"""The small immutable records that flow between kg's stages.

``ingest`` makes :class:`Paper`; ``extract`` turns one paper into
:class:`Mention` s (a pure function of the paper and its settings);
``concepts`` merges mentions across papers into :class:`Concept` s and
:class:`Link` s; ``graph`` adds paper labels and the shared-concept
:class:`Edge` s, giving the one hand-off record, :class:`KnowledgeGraph`,
from which the RDF, the NetworkX graphs and every file are made.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from kg.taxonomy import Taxonomy

__all__ = [
    "AUTHOR_KEYWORD",
    "Kind",
    "Role",
    "Paper",
    "Mention",
    "Concept",
    "Link",
    "KindOf",
    "How",
    "SharedConcept",
    "Edge",
    "KnowledgeGraph",
    "ModelIdentity",
    "Progress",
]


#: How a long stage reports: called as ``progress(stage, done, total)``.
Progress = Callable[[str, int, int], None]

#: The evidence of a link that comes from the record's author keywords, not its text.
AUTHOR_KEYWORD = "author keyword"


class Kind(StrEnum):
    """What a concept is."""

    METHOD = "method"
    PROBLEM = "problem"
    FIELD = "field"


class Role(StrEnum):
    """How a paper relates to a concept; each maps to one ontology property."""

    PROPOSES = "proposes"  # kg:proposes, a method introduced by the paper
    USES = "usesMethod"  # kg:usesMethod, a method used or studied
    ADDRESSES = "addressesProblem"  # kg:addressesProblem
    IN_FIELD = "inField"  # kg:inField
    # kg:mentionsConcept: the paper mentions the concept, without a claim of how
    # (a phrase extraction did not keep, linked because other papers name it too)
    MENTIONS = "mentionsConcept"

    @property
    def kind(self) -> Kind:
        """The kind of concept the role links to; MENTIONS links any (KeyError)."""
        return KindOf[self]

    @property
    def typed(self) -> bool:
        """Whether the role says how the paper relates to the concept (all but MENTIONS)."""
        return self in KindOf


KindOf = {
    Role.PROPOSES: Kind.METHOD,
    Role.USES: Kind.METHOD,
    Role.ADDRESSES: Kind.PROBLEM,
    Role.IN_FIELD: Kind.FIELD,
}


@dataclass(frozen=True)
class Paper:
    """One paper as read from an input file.

    Attributes:
        id: Stable identifier, safe inside an IRI: the record's own id, else a
            short hash of the normalised abstract.
        abstract: The abstract exactly as given (kept for the graph).
        text: A cleaned copy of the abstract (LaTeX, markdown and odd dashes
            removed) that extraction works on.
        title: The title given by the source, or None (see ``label``).
        source: ``file:line`` where the record starts, for messages.
        ids: Identifiers in other systems, ``(scheme, value)`` normalised
            (``("doi", "10.1145/3292500")``, ``("arxiv", "2402.12354")``); the
            schemes are those of :data:`kg.ingest.identifiers.SCHEMES`.
        url: The source's link to the paper (an http(s) URL), or None.
        other_sources: ``file:line`` of every other record of this paper that
            was merged into it (:mod:`kg.ingest.dedup`).
    """

    id: str
    abstract: str
    text: str
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    keywords: tuple[str, ...] = ()
    source: str = ""
    ids: tuple[tuple[str, str], ...] = ()
    url: str | None = None
    other_sources: tuple[str, ...] = ()


class _Strength:
    """What :class:`Mention` and :class:`Link` share: a confidence and a salience."""

    score: float
    salience: float | None

    @property
    def strength(self) -> float:
        """How strongly the paper makes the concept its own: the salience, where there is
        one, else the confidence. It names papers, weighs the edges between them and the
        fields a method's name gives; the confidence (how sure a reader is of the link) is
        what users filter on."""
        return self.score if self.salience is None else self.salience


@dataclass(frozen=True)
class Mention(_Strength):
    """A concept as one paper writes it, before merging across papers.

    Attributes:
        text: The surface form ("Clipped-SGD", "heavy-tailed noise"); for
            fields, the taxonomy key of the field.
        role: How the paper relates to it (its kind follows from the role).
        score: Confidence in [0, 1].
        sentence: The sentence of the cleaned abstract that supports it.
        expansion: The long form when the paper defines ``text`` as an
            acronym ("stochastic gradient descent" for "SGD").
        selected: False for a phrase the paper mentions but extraction did
            not keep (``role`` is then the kind it would most likely be); it
            becomes a ``MENTIONS`` link only if other papers mention it too
            (:mod:`kg.concepts`).
        topic: Key of the narrow field topic whose name the phrase's embedding
            is close to ("3d-generation" for "3D content"), or
            None; the concept is placed under it (:mod:`kg.concepts.hierarchy`).
        salience: How strongly the paper makes the phrase its method or problem
            (the candidate classifier's probability), where ``score`` is how
            likely a reader judges the link right (:mod:`kg.extract.reader`);
            None where the two are one. What names a paper
            (:mod:`kg.graph.labels`).
    """

    text: str
    role: Role
    score: float
    sentence: str
    expansion: str | None = None
    selected: bool = True
    topic: str | None = None
    salience: float | None = None

    @property
    def kind(self) -> Kind:
        return self.role.kind


@dataclass(frozen=True)
class Concept:
    """A canonical concept shared across papers.

    Attributes:
        key: Stable identifier, safe inside an IRI ("sgd", "heavy-tailed-noise").
        label: Preferred label, the form people write.
        alt_labels: Other forms seen (expansions, plurals, spelling variants).
        broader: Keys of the broader concepts this one is an instance of
            ("SGD" for "Clipped-SGD"); they may be fields of the taxonomy
            ("bandits" for "Thompson Sampling"). A field's broader is its
            taxonomy parent.
    """

    key: str
    label: str
    kind: Kind
    alt_labels: tuple[str, ...] = ()
    broader: tuple[str, ...] = ()


@dataclass(frozen=True)
class Link(_Strength):
    """One paper-concept relation with its confidence and evidence."""

    paper_id: str
    concept_key: str
    role: Role
    score: float
    sentence: str
    salience: float | None = None  # as the mention's (:class:`Mention`)


class How(StrEnum):
    """How two papers share a concept."""

    EXACT = "exact"  # both papers link to the concept
    BROADER = "broader"  # both reach it through the concept hierarchy
    TOPIC = "topic"  # both are in the same narrow field topic


@dataclass(frozen=True)
class SharedConcept:
    """One reason two papers are joined: a concept both reach, and how.

    Attributes:
        concept_key: The shared concept (for ``BROADER``, the common ancestor).
        how: How the papers share it.
        weight: What it adds to the edge's weight.
        via: The concepts of paper ``a`` and paper ``b`` it is reached from
            (both ``concept_key`` for ``EXACT``; for ``TOPIC``, a concept filed under
            the topic, or the topic itself where the paper links to it).
    """

    concept_key: str
    how: How
    weight: float
    via: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class Edge:
    """Two papers joined by what they share (``a < b``, paper ids).

    Attributes:
        weight: The sum of the shared concepts' weights.
        shared: The concepts that join the papers, strongest first (ties by key).
    """

    a: str
    b: str
    weight: float
    shared: tuple[SharedConcept, ...]


@dataclass(frozen=True)
class KnowledgeGraph:
    """Everything a build knows, before it is turned into RDF, graphs and files.

    Attributes:
        papers: In input order.
        concepts: Sorted by key; fields included.
        links: One per paper-concept pair, sorted by paper then concept.
        labels: A readable, unique label per paper id.
        taxonomy: The field taxonomy the field concepts come from.
        edges: Shared-concept edges, sorted by their two papers.
    """

    papers: tuple[Paper, ...]
    concepts: tuple[Concept, ...]
    links: tuple[Link, ...]
    labels: Mapping[str, str]
    taxonomy: Taxonomy
    edges: tuple[Edge, ...] = ()

    @property
    def field_iris(self) -> dict[str, str]:
        """Field key -> the field's IRI in the taxonomy."""
        return {f.key: f.iri for f in self.taxonomy.fields}


@dataclass(frozen=True)
class ModelIdentity:
    """The embedding model the mentions were extracted with, as a graph's provenance names it.

    Attributes:
        name: The model's name.
        sha256: The sha256 of its weights, when they were checked on load.
        key: What its vectors depend on, as the extraction cache's key reads it: the
            hashes of every pinned file, or another embedder's own ``fingerprint``
            (embedders that compute the same vectors share one).
    """

    name: str
    sha256: str | None = None
    key: str = ""
