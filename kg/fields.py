"""Field taxonomy (SKOS) and assigning fields to papers.

A taxonomy is a SKOS concept scheme: broad areas (``skos:topConceptOf``) with
narrower topics (``skos:broader``), each with labels and a one-line
definition. kg ships one in ``ontology/fields.ttl``; users can pass their own.

Assignment starts zero-shot: every field is embedded once from its labels and
definition, and a paper gets the fields whose embeddings are closest to its
abstract (as a whole and sentence by sentence), nudged up when the abstract
literally names a field or one of its alt labels. With the shipped taxonomy a
small learned component refines the ranking of the broad areas: a multinomial
logistic regression over the abstract's embedding and the zero-shot area
scores predicts the ICLR 2024 primary area (``kg/models/field_classifier.json``,
trained by ``bench/train_fields.py``), and each broad area's final score mixes
its zero-shot probability with the learned probability of the ICLR area it
maps to. A user taxonomy is scored zero-shot only. Either way the result for
one paper depends only on its text and the scorer, so builds can run in
parallel and incrementally.

Example, with a toy taxonomy and a toy embedder::

    >>> tax = Taxonomy((
    ...     Field("ml", "https://x.org/ml", "machine learning"),
    ...     Field("rl", "https://x.org/rl", "reinforcement learning", broader="ml"),
    ... ))
    >>> [f.key for f in tax.children("ml")]
    ['rl']
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from kg.embed import Embedder
from kg.errors import ModelError, TaxonomyError

__all__ = [
    "Field",
    "Taxonomy",
    "FieldScorer",
    "FieldClassifier",
    "DEFAULT_TAXONOMY",
    "DEFAULT_FIELD_CLASSIFIER",
    "MATCH_RELATIONS",
    "load_taxonomy",
    "load_field_classifier",
    "taxonomy_fingerprint",
    "assign_fields",
    "assign_fields_batch",
]

DEFAULT_TAXONOMY = Path(__file__).resolve().parents[1] / "ontology" / "fields.ttl"
DEFAULT_FIELD_CLASSIFIER = Path(__file__).resolve().parent / "models" / "field_classifier.json"

# SKOS mapping properties, strongest first: the order decides which external
# concept a field stands for when it has several mappings.
MATCH_RELATIONS = ("exactMatch", "closeMatch", "broadMatch", "narrowMatch", "relatedMatch")

_SKOS = "http://www.w3.org/2004/02/skos/core#"


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
    """A tree of fields, broad areas first, each followed by its narrower topics."""

    fields: tuple[Field, ...]

    def by_key(self, key: str) -> Field:
        """The field with this key; KeyError if there is none."""
        for f in self.fields:
            if f.key == key:
                return f
        raise KeyError(key)

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


# ---------------------------------------------------------------------------
# Loading


def _key_of(iri: str) -> str:
    local = re.split(r"[/#]", iri.rstrip("/#"))[-1]
    key = re.sub(r"[^A-Za-z0-9._~-]+", "-", local).strip("-")
    return key or "field"


def _parse_error(path: Path, exc: Exception) -> TaxonomyError:
    text = str(exc)
    found = re.search(r"at line (\d+)", text)
    where = f"{path}:{found.group(1)}" if found else str(path)
    why = getattr(exc, "_why", None) or (text.splitlines()[-1] if text else type(exc).__name__)
    return TaxonomyError(
        f"{where}: cannot parse the taxonomy file as RDF ({why}); "
        "fix the syntax (Turtle, RDF/XML, N-Triples or JSON-LD by file extension)"
    )


def _literal(graph, subject, predicate) -> list[str]:  # type: ignore[no-untyped-def]
    # English or language-less literals first, then the rest; sorted for stable output.
    values = list(graph.objects(subject, predicate))
    preferred = [v for v in values if getattr(v, "language", None) in (None, "en")]
    return sorted({str(v).strip() for v in (preferred or values) if str(v).strip()})


def load_taxonomy(path: str | Path | None = None) -> Taxonomy:
    """Read a SKOS concept scheme into a :class:`Taxonomy`.

    Every ``skos:Concept`` becomes a :class:`Field`, except concepts that are
    only targets of mapping properties (``skos:closeMatch`` etc.), such as the
    ICLR areas declared at the end of the shipped file.

    Args:
        path: A Turtle (or other RDF) file; the shipped ``ontology/fields.ttl``
            when None.

    Raises:
        TaxonomyError: The file is missing or unparseable, has no concepts, a
            concept lacks a prefLabel, two concepts share a key, a broader link
            points outside the file, or broader links form a cycle.
    """
    import rdflib
    from rdflib.namespace import RDF, SKOS
    from rdflib.util import guess_format

    path = Path(DEFAULT_TAXONOMY if path is None else path)
    if not path.is_file():
        raise TaxonomyError(f"{path}: taxonomy file not found; pass an existing SKOS Turtle file")
    graph = rdflib.Graph()
    try:
        graph.parse(path, format=guess_format(str(path)) or "turtle")
    except Exception as exc:  # rdflib raises many unrelated types for bad syntax
        raise _parse_error(path, exc) from exc

    concepts = set(graph.subjects(RDF.type, SKOS.Concept))
    rels = [getattr(SKOS, r) for r in MATCH_RELATIONS]
    targets = {o for r in rels for o in graph.objects(None, r)}
    hierarchical = set(graph.subjects(SKOS.broader, None)) | set(
        graph.subjects(SKOS.topConceptOf, None)
    )
    nodes = sorted((c for c in concepts if c not in targets or c in hierarchical), key=str)
    if not nodes:
        raise TaxonomyError(
            f"{path}: no skos:Concept found; declare each field as `field:x a skos:Concept`"
        )

    keys: dict[str, str] = {}
    for node in nodes:
        key = _key_of(str(node))
        if key in keys:
            raise TaxonomyError(
                f"{path}: concepts <{keys[key]}> and <{node}> both have the key {key!r}; "
                "give them IRIs with different last segments"
            )
        keys[key] = str(node)
    key_of = {iri: key for key, iri in keys.items()}

    fields: dict[str, Field] = {}
    for node in nodes:
        key = key_of[str(node)]
        labels = _literal(graph, node, SKOS.prefLabel)
        if not labels:
            raise TaxonomyError(f"{path}: concept <{node}> has no skos:prefLabel; add one")
        description = _literal(graph, node, SKOS.definition) or _literal(
            graph, node, SKOS.scopeNote
        )
        broader_iris = sorted(str(b) for b in graph.objects(node, SKOS.broader))
        broader = None
        if broader_iris:
            if broader_iris[0] not in key_of:
                raise TaxonomyError(
                    f"{path}: <{node}> has skos:broader <{broader_iris[0]}>, which is not a "
                    "skos:Concept in the file; declare it or remove the link"
                )
            broader = key_of[broader_iris[0]]
        matches = tuple(
            (r, str(o))
            for r in MATCH_RELATIONS
            for o in sorted(graph.objects(node, getattr(SKOS, r)), key=str)
        )
        fields[key] = Field(
            key=key,
            iri=str(node),
            label=labels[0],
            alt_labels=tuple(a for a in _literal(graph, node, SKOS.altLabel) if a != labels[0]),
            description=" ".join(description),
            broader=broader,
            matches=matches,
        )

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

    ordered: list[Field] = []

    def visit(f: Field) -> None:
        ordered.append(f)
        for child in sorted(
            (c for c in fields.values() if c.broader == f.key), key=lambda c: c.key
        ):
            visit(child)

    for top in sorted((f for f in fields.values() if f.broader is None), key=lambda f: f.key):
        visit(top)
    return Taxonomy(tuple(ordered))


# ---------------------------------------------------------------------------
# Scoring

# Weights of the evidence combined into a field's raw score; set by hand on
# one half of the ICLR 2024 dev set (see bench/eval_fields.py), not learned.
_W_DOC = 0.5  # abstract vs field definition
_W_SENT = 0.3  # best single sentence vs field definition
_W_LABEL = 0.2  # abstract vs field labels
_W_LEX = 0.08  # per distinct label literally present, up to _LEX_CAP
_LEX_CAP = 2
_CHILD_WEIGHT = 0.7  # how much an area's score follows its best topic rather than itself
_TEMPERATURE = 0.05  # softmax temperature that turns raw scores into [0, 1]


def _term_pattern(term: str) -> re.Pattern[str]:
    # Acronyms ("GAN", "NeRF", "MoE") match case-sensitively, words do not;
    # spaces and hyphens are interchangeable and a plural s is allowed.
    acronym = sum(ch.isupper() for ch in term) >= 2 and " " not in term
    body = r"[-\s]?".join(re.escape(part) for part in re.split(r"[-\s]+", term))
    return re.compile(rf"(?<![\w-]){body}(?:e?s)?(?![\w])", 0 if acronym else re.IGNORECASE)


def _unit(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.maximum(norms, 1e-12)


def taxonomy_fingerprint(taxonomy: Taxonomy) -> str:
    """sha256 of everything zero-shot scoring reads from a taxonomy.

    The learned field classifier is only valid for the taxonomy it was trained
    with: its features are that taxonomy's area scores.
    """
    rows = [
        [f.key, f.label, list(f.alt_labels), f.description, f.broader, [list(m) for m in f.matches]]
        for f in taxonomy.fields
    ]
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


@lru_cache(maxsize=1)
def _default_fingerprint() -> str:
    return taxonomy_fingerprint(load_taxonomy(DEFAULT_TAXONOMY))


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    p = np.exp(z)
    return np.asarray(p / p.sum(axis=-1, keepdims=True))


@dataclass(frozen=True, eq=False)
class FieldClassifier:
    """Learned ICLR-area probabilities and how they are mixed with zero-shot ones.

    A multinomial logistic regression whose features are the paper's
    embedding (title and abstract, as the embedder returns it) followed by the
    zero-shot raw score of every broad area, all standardised with ``mean``
    and ``scale``.

    Attributes:
        classes: IRIs of the predicted areas (the ICLR 2024 primary areas).
        areas: Keys of the broad areas whose zero-shot scores are features.
        dim: Embedding dimension the weights expect.
        coef: ``(len(classes), dim + len(areas))``.
        intercept: ``(len(classes),)``.
        mean, scale: Standardisation of the features, ``(dim + len(areas),)``.
        temperature: Divides the logits (chosen by cross-validation).
        weight: Share of the learned probability in an area's final score.
        taxonomy: :func:`taxonomy_fingerprint` of the taxonomy trained with.
        trained_on: What the weights were learned from, with CV figures.
    """

    classes: tuple[str, ...]
    areas: tuple[str, ...]
    dim: int
    coef: np.ndarray
    intercept: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    temperature: float
    weight: float
    taxonomy: str
    trained_on: str

    def feature_names(self) -> tuple[str, ...]:
        return (*(f"e{i}" for i in range(self.dim)), *(f"zs:{a}" for a in self.areas))

    def features(self, docs: np.ndarray, area_raw: np.ndarray) -> np.ndarray:
        """Standardised rows of (embedding, zero-shot area scores)."""
        X = np.hstack([np.asarray(docs, np.float64), np.asarray(area_raw, np.float64)])
        return np.asarray((X - self.mean) / self.scale)

    def probabilities(self, docs: np.ndarray, area_raw: np.ndarray) -> np.ndarray:
        """``(n, len(classes))`` learned area probabilities."""
        logits = self.features(docs, area_raw) @ self.coef.T + self.intercept
        return _softmax(logits / self.temperature)

    def to_json(self) -> str:
        return json.dumps(
            {
                "kind": "kg field classifier",
                "classes": list(self.classes),
                "areas": list(self.areas),
                "features": list(self.feature_names()),
                "coef": np.round(self.coef, 6).tolist(),
                "intercept": np.round(self.intercept, 6).tolist(),
                "mean": np.round(self.mean, 6).tolist(),
                "scale": np.round(self.scale, 6).tolist(),
                "temperature": self.temperature,
                "weight": self.weight,
                "taxonomy_sha256": self.taxonomy,
                "trained_on": self.trained_on,
            },
            indent=0,
            sort_keys=True,
        )


def load_field_classifier(path: str | Path = DEFAULT_FIELD_CLASSIFIER) -> FieldClassifier:
    """Read shipped weights; a missing, unreadable or inconsistent file is a ModelError."""
    path = Path(path)
    fix = "reinstall kg or retrain it with bench/train_fields.py"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        areas = tuple(str(a) for a in data["areas"])
        classes = tuple(str(c) for c in data["classes"])
        coef = np.asarray(data["coef"], np.float32)
        clf = FieldClassifier(
            classes=classes,
            areas=areas,
            dim=coef.shape[1] - len(areas),
            coef=coef,
            intercept=np.asarray(data["intercept"], np.float32),
            mean=np.asarray(data["mean"], np.float32),
            scale=np.asarray(data["scale"], np.float32),
            temperature=float(data["temperature"]),
            weight=float(data["weight"]),
            taxonomy=str(data["taxonomy_sha256"]),
            trained_on=str(data["trained_on"]),
        )
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise ModelError(f"cannot read the field classifier {path}: {exc!r}; {fix}") from exc
    consistent = (
        coef.ndim == 2
        and coef.shape[0] == len(classes)
        and clf.dim > 0
        and tuple(data.get("features", ())) == clf.feature_names()
        and clf.intercept.shape == (len(classes),)
        and clf.mean.shape == clf.scale.shape == (coef.shape[1],)
        and bool(np.all(clf.scale > 0))
        and clf.temperature > 0
        and 0.0 <= clf.weight <= 1.0
    )
    if not consistent:
        raise ModelError(f"{path}: weights do not match their feature layout or classes; {fix}")
    return clf


@dataclass(frozen=True, eq=False)
class FieldScorer:
    """Field embeddings, label patterns and the learned classifier, set up once per taxonomy.

    Build with :meth:`from_taxonomy`; pass to :func:`assign_fields`.
    """

    taxonomy: Taxonomy
    embedder: Embedder
    definitions: np.ndarray  # (n_fields, dim), centred, unit rows
    labels: np.ndarray  # (n_fields, dim), centred, unit rows
    center: np.ndarray  # (dim,), mean of the field definition embeddings
    patterns: tuple[tuple[re.Pattern[str], ...], ...] = field(repr=False)
    classifier: FieldClassifier | None = field(default=None, repr=False)
    # (n_areas, n_classes): 1 where a broad area maps to a classifier class.
    area_class: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def from_taxonomy(
        cls,
        taxonomy: Taxonomy,
        embedder: Embedder,
        classifier: FieldClassifier | None | str | Path = "default",
    ) -> FieldScorer:
        """Embed every field's definition and labels (one embedder call).

        Args:
            classifier: ``"default"`` uses the shipped weights when
                ``taxonomy`` is the shipped one and none otherwise; a path or
                a :class:`FieldClassifier` forces those weights; None scores
                zero-shot only.

        Raises:
            ModelError: The weights to use are missing, do not fit this
                taxonomy or do not fit the embedder's dimension.
        """
        fs = taxonomy.fields
        defs = [f"{f.label}: {f.description or f.label}" for f in fs]
        labs = ["; ".join((f.label, *f.alt_labels)) for f in fs]
        vecs = np.asarray(embedder.embed(defs + labs), dtype=np.float32)
        if isinstance(classifier, str) and classifier == "default":
            default = taxonomy_fingerprint(taxonomy) == _default_fingerprint()
            classifier = load_field_classifier() if default else None
        elif isinstance(classifier, (str, Path)):
            classifier = load_field_classifier(classifier)
        area_class = None
        if classifier is not None:
            area_class = _check_classifier(classifier, taxonomy, vecs.shape[1])
        # Centring removes what all ML fields share, so cosines measure what
        # sets one field apart from the others.
        center = vecs[: len(fs)].mean(axis=0)
        vecs = _unit(vecs - center)
        patterns = tuple(
            tuple(_term_pattern(t) for t in dict.fromkeys((f.label, *f.alt_labels))) for f in fs
        )
        return cls(
            taxonomy,
            embedder,
            vecs[: len(fs)],
            vecs[len(fs) :],
            center,
            patterns,
            classifier,
            area_class,
        )

    def lexical_hits(self, text: str) -> np.ndarray:
        """Number of distinct labels of each field that occur in ``text``."""
        return np.array(
            [sum(1 for p in pats if p.search(text)) for pats in self.patterns], dtype=np.float32
        )

    def raw_scores(
        self, doc: np.ndarray, sents: np.ndarray, hits: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Raw field scores of one paper and, per field, the index of its best sentence."""
        doc = _unit(doc - self.center)
        sents = _unit(sents - self.center)
        sent_sims = sents @ self.definitions.T  # (n_sents, n_fields)
        raw = (
            _W_DOC * (self.definitions @ doc)
            + _W_SENT * sent_sims.max(axis=0)
            + _W_LABEL * (self.labels @ doc)
            + _W_LEX * np.minimum(hits, _LEX_CAP)
        )
        return raw, sent_sims.argmax(axis=0)

    def area_raw(self, raw: np.ndarray) -> np.ndarray:
        """Zero-shot raw score of each broad area, in :meth:`Taxonomy.top_level` order.

        A broad area is as strong as its best topic: papers name topics more
        often than areas.
        """
        tax = self.taxonomy
        index = {f.key: i for i, f in enumerate(tax.fields)}
        return np.array(
            [
                (1 - _CHILD_WEIGHT) * raw[index[t.key]]
                + _CHILD_WEIGHT * max(raw[index[c.key]] for c in (t, *tax.children(t.key)))
                for t in tax.top_level()
            ],
            dtype=np.float64,
        )

    def area_probabilities(self, docs: np.ndarray, area_raw: np.ndarray) -> np.ndarray:
        """Final ``(n, n_areas)`` broad-area scores of papers; rows sum to 1.

        Zero-shot, the softmax of the raw area scores. With a classifier, a mix:
        ``(1 - w) * zero_shot(area) + w * learned(class) * share(area)``, where
        ``class`` is the ICLR area the broad area maps to and ``share`` splits
        that class's learned probability among the broad areas mapping to it
        in proportion to their zero-shot probabilities (computer vision and
        NLP, say, are both one ICLR area).
        """
        area_raw = np.atleast_2d(area_raw)
        zero = _softmax(area_raw / _TEMPERATURE)
        if self.classifier is None or self.area_class is None:
            return zero
        learned = self.classifier.probabilities(np.atleast_2d(docs), area_raw)
        # Zero-shot mass of the class each area maps to, per paper and area.
        denom = (zero @ self.area_class) @ self.area_class.T
        share = np.divide(zero, denom, out=np.zeros_like(zero), where=denom > 0)
        w = self.classifier.weight
        mixed = (1 - w) * zero + w * share * (learned @ self.area_class.T)
        return np.asarray(mixed / mixed.sum(axis=1, keepdims=True))


def _check_classifier(clf: FieldClassifier, taxonomy: Taxonomy, dim: int) -> np.ndarray:
    """The area-to-class matrix, after checking the weights fit the taxonomy and embedder."""
    fix = "retrain it with bench/train_fields.py, or score zero-shot (classifier=None)"
    if clf.taxonomy != taxonomy_fingerprint(taxonomy):
        raise ModelError(
            "the field classifier was trained with another field taxonomy (fingerprint "
            f"{clf.taxonomy[:12]}, this one {taxonomy_fingerprint(taxonomy)[:12]}); {fix}"
        )
    keys = tuple(t.key for t in taxonomy.top_level())
    if clf.areas != keys:
        raise ModelError(f"the field classifier expects the broad areas {clf.areas}; {fix}")
    if clf.dim != dim:
        raise ModelError(
            f"the field classifier expects {clf.dim}-dimensional embeddings (all-MiniLM-L6-v2) "
            f"but the embedder returns {dim}; {fix}"
        )
    column = {c: j for j, c in enumerate(clf.classes)}
    area_class = np.zeros((len(keys), len(clf.classes)))
    for i, key in enumerate(keys):
        for _rel, iri in taxonomy.effective_matches(key)[:1]:
            if iri in column:
                area_class[i, column[iri]] = 1.0
    return area_class


def _choose(
    scorer: FieldScorer,
    raw: np.ndarray,
    best_sent: np.ndarray,
    sentences: Sequence[str],
    top_k: int,
    probs: np.ndarray,
) -> list[tuple[str, float, str]]:
    tax = scorer.taxonomy
    index = {f.key: i for i, f in enumerate(tax.fields)}
    tops = tax.top_level()
    out: list[tuple[str, float, str]] = []
    for a in np.argsort(-probs, kind="stable")[: max(1, top_k)]:
        top = tops[a]
        kids = tax.children(top.key)
        i_top = index[top.key]
        score = float(min(1.0, max(0.0, probs[a])))
        if kids:
            i_kid = max((index[c.key] for c in kids), key=lambda i: raw[i])
            if raw[i_kid] >= raw[i_top]:
                out.append((tax.fields[i_kid].key, score, sentences[best_sent[i_kid]]))
                out.append((top.key, score, sentences[best_sent[i_top]]))
                continue
        out.append((top.key, score, sentences[best_sent[i_top]]))
    return out


def assign_fields_batch(
    texts: Sequence[str],
    sentence_lists: Sequence[Sequence[str]],
    scorer: FieldScorer,
    top_k: int = 3,
) -> list[list[tuple[str, float, str]]]:
    """:func:`assign_fields` for many papers with one embedder call.

    Args:
        texts: Each paper's text (title and abstract).
        sentence_lists: Each paper's sentences, the candidates for evidence;
            an empty list means the whole text is the only sentence.
        scorer: From :meth:`FieldScorer.from_taxonomy`.
        top_k: Number of broad areas per paper.

    Returns:
        Per paper, ``(field_key, score, sentence)`` best first; see
        :func:`assign_fields`.
    """
    if len(texts) != len(sentence_lists):
        raise ValueError("texts and sentence_lists must have the same length")
    if not texts:
        return []
    sents = [list(s) if s else [t] for t, s in zip(texts, sentence_lists, strict=True)]
    flat = [*texts, *(s for group in sents for s in group)]
    vecs = np.asarray(scorer.embedder.embed(flat), dtype=np.float32)
    raws, bests = [], []
    start = len(texts)
    for i, text in enumerate(texts):
        n = len(sents[i])
        raw, best = scorer.raw_scores(vecs[i], vecs[start : start + n], scorer.lexical_hits(text))
        raws.append(raw)
        bests.append(best)
        start += n
    # One paper at a time, so that a paper's scores do not depend on its batch
    # (a matrix product can round differently with the shape).
    probs = [
        scorer.area_probabilities(vecs[i], scorer.area_raw(raws[i]))[0] for i in range(len(texts))
    ]
    return [
        _choose(scorer, raws[i], bests[i], sents[i], top_k, probs[i]) for i in range(len(texts))
    ]


def assign_fields(
    text: str, sentences: Sequence[str], scorer: FieldScorer, top_k: int = 3
) -> list[tuple[str, float, str]]:
    """The fields of one paper, best first.

    Returns up to ``top_k`` broad areas, each preceded by its best narrower
    topic when that topic matches at least as well as the area itself. Each
    item is ``(field_key, score, sentence)``: the score in [0, 1] is the
    area's probability among all areas (zero-shot, mixed with the learned
    ICLR-area probability when the scorer has a classifier; a topic carries
    its area's score), and the sentence is the one most similar to that
    field. At least one field is always returned.
    """
    return assign_fields_batch([text], [sentences], scorer, top_k)[0]
