"""The field taxonomy as data: a SKOS concept scheme of broad areas and narrower topics.

kg ships one in ``ontology/fields.ttl``; users can pass their own. Each field
has labels and a one-line definition, and may map to concepts of other
schemes (``skos:closeMatch`` and the other mapping properties): the shipped
areas map to the ICLR 2024 primary areas, whose labels the file also declares.

Example, with a toy taxonomy::

    >>> tax = Taxonomy((
    ...     Field("ml", "https://x.org/ml", "machine learning"),
    ...     Field("rl", "https://x.org/rl", "reinforcement learning", broader="ml"),
    ... ))
    >>> [f.key for f in tax.children("ml")], tax.root("rl").key
    (['rl'], 'ml')
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from kg.errors import TaxonomyError

__all__ = [
    "Field",
    "Taxonomy",
    "DEFAULT_TAXONOMY",
    "MATCH_RELATIONS",
    "load_taxonomy",
    "shipped_ontology",
]

_PACKAGE = Path(__file__).resolve().parent


def shipped_ontology(name: str, package: Path = _PACKAGE) -> Path:
    """A file of the top-level ``ontology/`` folder, from a checkout or an installed wheel.

    A source checkout (and an editable install) reads ``ontology/`` beside the
    package; a wheel carries the same files as ``kg/ontology/``.
    """
    checkout = package.parent / "ontology" / name
    return checkout if checkout.is_file() else package / "ontology" / name


DEFAULT_TAXONOMY = shipped_ontology("fields.ttl")

#: SKOS mapping properties, strongest first: the order decides which external
#: concept a field stands for when it has several mappings.
MATCH_RELATIONS = ("exactMatch", "closeMatch", "broadMatch", "narrowMatch", "relatedMatch")


@dataclass(frozen=True)
class Field:
    """One concept of a field taxonomy.

    Attributes:
        key: IRI-safe local name ("optimization", "stochastic-optimization").
        iri: The concept's IRI in the taxonomy file.
        label: ``skos:prefLabel``.
        alt_labels: ``skos:altLabel`` s, sorted.
        description: ``skos:definition`` (else ``skos:scopeNote``), or "".
        broader: Key of the broader field, None for a broad area.
        matches: ``(relation, target_iri)`` mappings to other schemes, e.g.
            ``("closeMatch", "https://w3id.org/kg/iclr2024-area/optimization")``,
            strongest relation first.
    """

    key: str
    iri: str
    label: str
    alt_labels: tuple[str, ...] = ()
    description: str = ""
    broader: str | None = None
    matches: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Taxonomy:
    """A tree of fields, broad areas first, each followed by its narrower topics.

    Attributes:
        fields: Every field, in tree order.
        targets: ``{IRI: prefLabel}`` of the external concepts the fields map
            to (the ICLR 2024 areas in the shipped file), when the file labels them.
        scheme: IRI of the ``skos:ConceptScheme`` the fields are in (the one
            most of them name with ``skos:inScheme``/``skos:topConceptOf``), or
            "" when the file declares none.
        scheme_label: The scheme's ``dcterms:title``, ``skos:prefLabel`` or
            ``rdfs:label``, or "".
    """

    fields: tuple[Field, ...]
    targets: Mapping[str, str] = field(default_factory=dict, hash=False)
    scheme: str = ""
    scheme_label: str = ""

    @cached_property
    def _by_key(self) -> dict[str, Field]:
        return {f.key: f for f in self.fields}

    def by_key(self, key: str) -> Field:
        """The field with this key; KeyError if there is none."""
        return self._by_key[key]

    def top_level(self) -> tuple[Field, ...]:
        """The broad areas (fields without a broader field)."""
        return tuple(f for f in self.fields if f.broader is None)

    def children(self, key: str) -> tuple[Field, ...]:
        """The fields directly narrower than ``key``."""
        return tuple(f for f in self.fields if f.broader == key)

    def ancestors(self, key: str) -> tuple[Field, ...]:
        """Broader fields of ``key``, nearest first."""
        out: list[Field] = []
        f = self.by_key(key)
        while f.broader is not None:
            f = self.by_key(f.broader)
            out.append(f)
        return tuple(out)

    def root(self, key: str) -> Field:
        """The broad area a field belongs to (itself for a broad area)."""
        chain = self.ancestors(key)
        return chain[-1] if chain else self.by_key(key)

    def effective_matches(self, key: str) -> tuple[tuple[str, str], ...]:
        """A field's own mappings, else those of its nearest broader field that has any."""
        for f in (self.by_key(key), *self.ancestors(key)):
            if f.matches:
                return f.matches
        return ()


# --- loading -----------------------------------------------------------------


def load_taxonomy(path: str | Path | None = None) -> Taxonomy:
    """Read a SKOS concept scheme into a :class:`Taxonomy`.

    Every ``skos:Concept`` becomes a :class:`Field`, except concepts that are
    only targets of mapping properties (``skos:closeMatch`` etc.), such as the
    ICLR areas declared at the end of the shipped file: those are the
    taxonomy's ``targets``.

    A file is parsed once per process for each content it has had (a third
    of a second for the shipped one; a build, ``kg eval`` and the tests load it
    again and again): a file edited since is read again.

    Args:
        path: A Turtle (or other RDF) file; the shipped ``ontology/fields.ttl``
            when None.

    Raises:
        TaxonomyError: The file is missing or unparseable, has no concepts, a
            concept lacks a prefLabel, two concepts share a key, a broader link
            points outside the file, or broader links form a cycle.
    """
    path = Path(DEFAULT_TAXONOMY if path is None else path)
    try:
        content = hashlib.sha256(path.read_bytes()).digest()
    except OSError:  # missing or unreadable: _parse says which
        return _load(path)
    return _load_once(path, path.resolve(), content)


@functools.lru_cache(maxsize=8)
def _load_once(path: Path, resolved: Path, content: bytes) -> Taxonomy:
    """:func:`_load`, once per name, file (relative IRIs resolve against it) and content."""
    return _load(path)


def _load(path: Path) -> Taxonomy:
    graph = _parse(path)
    nodes, targets = _concepts(graph, path)
    key_of = _keys(nodes, path)
    fields = {key_of[str(n)]: _field(graph, n, key_of, path) for n in nodes}
    _check_acyclic(fields, path)
    scheme, scheme_label = _scheme(graph, nodes)
    return Taxonomy(_tree_order(fields), _target_labels(graph, targets), scheme, scheme_label)


def _parse(path: Path) -> Any:
    import rdflib
    from rdflib.util import guess_format

    if not path.is_file():
        raise TaxonomyError(f"{path}: taxonomy file not found; pass an existing SKOS Turtle file")
    graph = rdflib.Graph()
    try:
        graph.parse(path, format=guess_format(str(path)) or "turtle")
    except Exception as exc:  # rdflib raises many unrelated types for bad syntax
        raise _parse_error(path, exc) from exc
    return graph


def _parse_error(path: Path, exc: Exception) -> TaxonomyError:
    text = str(exc)
    found = re.search(r"at line (\d+)", text)
    where = f"{path}:{found.group(1)}" if found else str(path)
    why = getattr(exc, "_why", None) or (text.splitlines()[-1] if text else type(exc).__name__)
    return TaxonomyError(
        f"{where}: cannot parse the taxonomy file as RDF ({why}); "
        "fix the syntax (Turtle, RDF/XML, N-Triples or JSON-LD by file extension)"
    )


def _skos(name: str) -> Any:
    from rdflib.namespace import SKOS

    return getattr(SKOS, name)


def _concepts(graph: Any, path: Path) -> tuple[list[Any], set[Any]]:
    """The fields' nodes (sorted), and the mapping targets that are not fields."""
    from rdflib.namespace import RDF

    concepts = set(graph.subjects(RDF.type, _skos("Concept")))
    targets = {o for r in MATCH_RELATIONS for o in graph.objects(None, _skos(r))}
    hierarchical = set(graph.subjects(_skos("broader"), None)) | set(
        graph.subjects(_skos("topConceptOf"), None)
    )
    nodes = sorted((c for c in concepts if c not in targets or c in hierarchical), key=str)
    if not nodes:
        raise TaxonomyError(
            f"{path}: no skos:Concept found; declare each field as `field:x a skos:Concept`"
        )
    return nodes, targets - set(nodes)


def _key_of(iri: str) -> str:
    local = re.split(r"[/#]", iri.rstrip("/#"))[-1]
    key = re.sub(r"[^A-Za-z0-9._~-]+", "-", local).strip("-")
    return key or "field"


def _keys(nodes: list[Any], path: Path) -> dict[str, str]:
    """IRI -> key; two concepts may not share a key."""
    iris: dict[str, str] = {}
    for node in nodes:
        key = _key_of(str(node))
        if key in iris:
            raise TaxonomyError(
                f"{path}: concepts <{iris[key]}> and <{node}> both have the key {key!r}; "
                "give them IRIs with different last segments"
            )
        iris[key] = str(node)
    return {iri: key for key, iri in iris.items()}


def _literals(graph: Any, subject: Any, predicate: Any) -> list[str]:
    # English or language-less literals first, then the rest; sorted for stable output.
    values = list(graph.objects(subject, predicate))
    preferred = [v for v in values if getattr(v, "language", None) in (None, "en")]
    return sorted({str(v).strip() for v in (preferred or values) if str(v).strip()})


def _field(graph: Any, node: Any, key_of: Mapping[str, str], path: Path) -> Field:
    labels = _literals(graph, node, _skos("prefLabel"))
    if not labels:
        raise TaxonomyError(f"{path}: concept <{node}> has no skos:prefLabel; add one")
    description = _literals(graph, node, _skos("definition")) or _literals(
        graph, node, _skos("scopeNote")
    )
    broader_iris = sorted(str(b) for b in graph.objects(node, _skos("broader")))
    broader = None
    if broader_iris:
        if broader_iris[0] not in key_of:
            raise TaxonomyError(
                f"{path}: <{node}> has skos:broader <{broader_iris[0]}>, which is not a "
                "skos:Concept in the file; declare it or remove the link"
            )
        broader = key_of[broader_iris[0]]
    matches = tuple(
        (r, str(o)) for r in MATCH_RELATIONS for o in sorted(graph.objects(node, _skos(r)), key=str)
    )
    alts = _literals(graph, node, _skos("altLabel"))
    return Field(
        key=key_of[str(node)],
        iri=str(node),
        label=labels[0],
        alt_labels=tuple(a for a in alts if a != labels[0]),
        description=" ".join(description),
        broader=broader,
        matches=matches,
    )


def _check_acyclic(fields: Mapping[str, Field], path: Path) -> None:
    for key in fields:
        seen = [key]
        current = fields[key].broader
        while current is not None:
            if current in seen:
                cycle = " -> ".join([*seen[seen.index(current) :], current])
                raise TaxonomyError(
                    f"{path}: skos:broader links form a cycle ({cycle}); a field cannot be "
                    "narrower than itself"
                )
            seen.append(current)
            current = fields[current].broader


def _tree_order(fields: Mapping[str, Field]) -> tuple[Field, ...]:
    """Broad areas by key, each followed depth-first by its narrower fields."""
    ordered: list[Field] = []

    def visit(f: Field) -> None:
        ordered.append(f)
        for child in sorted(
            (c for c in fields.values() if c.broader == f.key), key=lambda c: c.key
        ):
            visit(child)

    for top in sorted((f for f in fields.values() if f.broader is None), key=lambda f: f.key):
        visit(top)
    return tuple(ordered)


def _scheme(graph: Any, nodes: list[Any]) -> tuple[str, str]:
    """The concept scheme most fields are in, and its label ("" when there is none)."""
    from rdflib import URIRef
    from rdflib.namespace import DCTERMS, RDFS

    counts: dict[str, int] = {}
    for node in nodes:
        for relation in ("inScheme", "topConceptOf"):
            for scheme in set(graph.objects(node, _skos(relation))):
                counts[str(scheme)] = counts.get(str(scheme), 0) + 1
    if not counts:
        return "", ""
    iri = min(counts, key=lambda s: (-counts[s], s))
    for predicate in (DCTERMS.title, _skos("prefLabel"), RDFS.label):
        labels = _literals(graph, URIRef(iri), predicate)
        if labels:
            return iri, labels[0]
    return iri, ""


def _target_labels(graph: Any, targets: set[Any]) -> dict[str, str]:
    """``{IRI: prefLabel}`` of the mapping targets the file labels (English first)."""
    out: dict[str, str] = {}
    for iri in sorted(targets, key=str):
        labels = sorted(
            graph.objects(iri, _skos("prefLabel")),
            key=lambda v: (getattr(v, "language", None) not in (None, "en"), str(v)),
        )
        if labels:
            out[str(iri)] = str(labels[0])
    return out
