"""Shared-concept edges between papers: weighted by evidence, explained, bounded.

Computed once as data (:class:`~kg.model.Edge`); the RDF and the NetworkX
graphs both read them, so they always agree.

**What two papers share.** Each paper reaches a set of concepts:

- the methods and problems it links to (*exact*, strength 1);
- every broader concept of those, through the concept hierarchy (*broader*,
  strength ``rule.broader``);
- the field topics it is in (*topic*, strength ``rule.topic`` times the
  link's strength) and its broad areas (strength ``rule.area`` times the
  link's strength).

A concept reached several ways keeps its strongest. **How much it says** is
its specificity, an IDF weight: ``spec(x) = ln(N / df(x))`` with ``N`` papers
of which ``df(x)`` reach ``x``; a concept shared by 2 of 1,000 papers says
more than one shared by 200. Each paper is a vector over the concepts it
reaches, ``v_p(x) = s_p(x) * sqrt(spec(x))``, and **the weight** of papers
``p`` and ``q`` is the cosine of their vectors:

    w(p, q) = sum over x reached by both of s_p(x) * s_q(x) * spec(x)
              / (|v_p| * |v_q|) ** rule.normalise

(``normalise=1``: the cosine, in [0, 1]; ``0``: the plain sum). Each term of
the sum is what one shared concept contributes, and the edge lists them.
A link's strength is how strongly the paper makes the concept its own
(:attr:`kg.model.Link.strength`: the classifier's salience, not the reader's
confidence, which cost keyword-pair recall 0.418 -> 0.408 out of fold). An exact
link counts ``exact_base + (1 - exact_base) * strength``;
one reached through the hierarchy by one side counts ``broader`` times as
much. **Density** is bounded: each paper keeps its ``rule.max_neighbours``
strongest edges (an edge stays if either paper keeps it), and no edge weighs
less than ``rule.min_weight``.

The defaults were chosen by cross-validation on ICLR 2024 (bench/links_cv.py,
docs/explanation/measuring.md "Links"): fields out of fold, author keywords unseen. Topics
and areas get a high strength although their IDF is low: on ICLR 2024 a
shared narrow topic then contributes 3.4 times as much on average as a shared
exact concept, a shared area about as much (1.1 times) and a concept shared
through the hierarchy a sixth; weights under which fields contribute less
than exact concepts (topic 1.5, area 1) drop area precision at 5 from 0.43
to 0.34.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import sparse

from kg.model import Concept, Edge, How, Kind, Link, SharedConcept
from kg.taxonomy import Taxonomy

__all__ = ["EdgeRule", "shared_concept_edges", "reached", "explain"]


@dataclass(frozen=True)
class EdgeRule:
    """The documented, configurable rule for shared-concept edges (see the module doc).

    Attributes:
        exact_base: Strength of an exact link at confidence 0 (1 at confidence 1).
        broader: Strength of a concept reached through the hierarchy.
        topic: Strength of a narrow field topic, times the link's confidence.
        area: Strength of a broad area, times the link's confidence.
        max_neighbours: Each paper keeps at most this many of its strongest edges.
        min_weight: No edge weighs less (a cosine when ``normalise`` is 1).
        max_pairs: Work bound: the commonest concepts (areas in a large corpus)
            stop proposing pairs of their own once all the others together
            propose this many; they still add weight to the pairs others join.
        normalise: 1 divides by the vectors' norms (cosine), 0 does not.
    """

    exact_base: float = 0.5
    broader: float = 0.3
    topic: float = 4.0
    area: float = 2.0
    max_neighbours: int = 30
    min_weight: float = 0.03
    max_pairs: int = 50_000_000
    normalise: float = 1.0


Reached = dict[str, tuple[float, How, str]]  # concept key -> (strength, how, via)


def reached(
    paper_links: Sequence[Link],
    kinds: Mapping[str, Kind],
    up: Mapping[str, tuple[str, ...]],
    taxonomy: Taxonomy,
    rule: EdgeRule,
) -> Reached:
    """What one paper reaches: each concept with its strength, how, and from which concept."""
    out: Reached = {}

    def add(key: str, strength: float, how: How, via: str) -> None:
        if key not in out or strength > out[key][0]:
            out[key] = (strength, how, via)

    for link in paper_links:
        kind = kinds[link.concept_key]
        if kind is Kind.FIELD:
            narrow = _is_topic(taxonomy, link.concept_key)
            strength = (rule.topic if narrow else rule.area) * link.strength
            add(link.concept_key, strength, How.TOPIC, link.concept_key)
            continue
        add(
            link.concept_key,
            rule.exact_base + (1 - rule.exact_base) * link.strength,
            How.EXACT,
            link.concept_key,
        )
        for ancestor in up.get(link.concept_key, ()):
            if kinds.get(ancestor) is not Kind.FIELD or _is_topic(taxonomy, ancestor):
                add(
                    ancestor, rule.broader * out[link.concept_key][0], How.BROADER, link.concept_key
                )
    return out


def _is_topic(taxonomy: Taxonomy, key: str) -> bool:
    try:
        return taxonomy.by_key(key).broader is not None
    except KeyError:
        return False


def shared_concept_edges(
    papers: Sequence[str],
    concepts: Sequence[Concept],
    links: Sequence[Link],
    taxonomy: Taxonomy,
    rule: EdgeRule = EdgeRule(),
) -> tuple[Edge, ...]:
    """The shared-concept edges of a corpus, by the rule of the module docstring.

    >>> from kg.model import Role
    >>> from kg.taxonomy import Taxonomy
    >>> cs = [Concept("sgd", "SGD", Kind.METHOD), Concept("adam", "Adam", Kind.METHOD)]
    >>> ls = [Link("a", "sgd", Role.USES, .9, "s"), Link("b", "sgd", Role.USES, .8, "s"),
    ...       Link("c", "adam", Role.USES, .7, "s")]
    >>> [(e.a, e.b, round(e.weight, 2), [s.concept_key for s in e.shared])
    ...  for e in shared_concept_edges(["a", "b", "c"], cs, ls, Taxonomy(()))]
    [('a', 'b', 1.0, ['sgd'])]
    """
    kinds = {c.key: c.kind for c in concepts}
    up = _ancestors(concepts)
    by_paper: dict[str, list[Link]] = defaultdict(list)
    for link in links:
        by_paper[link.paper_id].append(link)
    order = sorted(papers)
    reach = [reached(by_paper[p], kinds, up, taxonomy, rule) for p in order]
    weights = _weights(reach, rule)
    edges = []
    for i, j, w in _bounded(weights, rule):
        scale = 1.0 / (weights.norms[i] * weights.norms[j])
        shared = _explained(reach[i], reach[j], weights.spec, scale)
        edges.append(Edge(order[i], order[j], round(w, 4), shared))
    return tuple(edges)


def _ancestors(concepts: Sequence[Concept]) -> dict[str, tuple[str, ...]]:
    """Every concept's broader concepts, transitively, nearest first."""
    broader = {c.key: c.broader for c in concepts}
    memo: dict[str, tuple[str, ...]] = {}

    def up(key: str, trail: frozenset[str]) -> tuple[str, ...]:
        if key in memo:
            return memo[key]
        out: dict[str, None] = {}
        for b in broader.get(key, ()):
            if b not in trail:
                out[b] = None
                out.update(dict.fromkeys(up(b, trail | {key})))
        memo[key] = tuple(out)
        return memo[key]

    return {c.key: up(c.key, frozenset()) for c in concepts}


#: Pair weights are computed for as many papers at a time as keep one block's matrix
#: under this many entries, so memory grows with the corpus, not with its square.
BLOCK_ENTRIES = 4_000_000


@dataclass(frozen=True)
class _Weights:
    """Each paper's concept vector, split so the commonest concepts propose no pairs."""

    specific: sparse.csr_matrix  # papers x concepts: the concepts that propose pairs
    commonest: sparse.csr_matrix  # papers x concepts: those that only add to others' pairs
    spec: dict[str, float]
    norms: np.ndarray  # what each paper's row and column are divided by (1: none)

    @cached_property
    def _columns(self) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
        """``specific.T`` and ``commonest.T`` as row matrices, made once for all the blocks
        (a product with a column matrix converts it first, each time)."""
        return self.specific.T.tocsr(), self.commonest.T.tocsr()

    def block(self, start: int, stop: int) -> sparse.csr_matrix:
        """The weights of papers ``start:stop`` with every paper (rows x all papers)."""
        specific_t, commonest_t = self._columns
        W = (self.specific[start:stop] @ specific_t).tocsr()
        if self.commonest.nnz:
            extra = self.commonest[start:stop] @ commonest_t
            pattern = W.copy()
            pattern.data[:] = 1.0
            W = (W + pattern.multiply(extra)).tocsr()
        W = W.tocoo()
        off = W.row + start != W.col  # no diagonal
        W = sparse.csr_matrix((W.data[off], (W.row[off], W.col[off])), W.shape)
        W.eliminate_zeros()
        scaled = sparse.diags(1.0 / self.norms[start:stop]) @ W
        return (scaled @ sparse.diags(1.0 / self.norms)).tocsr()


def _weights(reach: Sequence[Reached], rule: EdgeRule) -> _Weights:
    """The papers' vectors (common concepts only add to other pairs) and their norms."""
    n = len(reach)
    df: dict[str, int] = defaultdict(int)
    for r in reach:
        for key in r:
            df[key] += 1
    spec = {k: math.log(n / d) for k, d in df.items()}
    common = _commonest(df, rule.max_pairs)
    columns = {k: i for i, k in enumerate(sorted(df))}
    rows, cols, vals, broad = [], [], [], []
    for i, r in enumerate(reach):
        for key, (strength, _, _) in r.items():
            value = strength * math.sqrt(spec[key])
            if value > 0:
                rows.append(i)
                cols.append(columns[key])
                vals.append(value)
                broad.append(key in common)
    shape = (n, len(columns))
    mask = np.asarray(broad, dtype=bool)
    vals_arr = np.asarray(vals, dtype=np.float64)
    rows_arr, cols_arr = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    specific = sparse.csr_matrix((vals_arr[~mask], (rows_arr[~mask], cols_arr[~mask])), shape)
    commonest = sparse.csr_matrix((vals_arr[mask], (rows_arr[mask], cols_arr[mask])), shape)
    norms = np.ones(n)
    if rule.normalise:
        full = sparse.csr_matrix((vals_arr, (rows_arr, cols_arr)), shape)
        norms = np.sqrt(np.asarray(full.multiply(full).sum(axis=1)).ravel()) ** rule.normalise
        norms[norms == 0] = 1.0
    return _Weights(specific, commonest, spec, norms)


def _commonest(df: Mapping[str, int], max_pairs: int) -> set[str]:
    """The commonest concepts, as few as needed to keep the pairs the rest propose under budget."""
    total = sum(d * d for d in df.values())
    common: set[str] = set()
    for key, d in sorted(df.items(), key=lambda kv: (-kv[1], kv[0])):
        if total <= max_pairs:
            break
        common.add(key)
        total -= d * d
    return common


def _bounded(weights: _Weights, rule: EdgeRule) -> list[tuple[int, int, float]]:
    """The edges each paper keeps (its strongest ``max_neighbours``), above the floor,
    ordered by their papers.

    An edge both papers keep takes the weight the later paper's row gives it.
    The kept entries are held as arrays, not as a dict of pairs (about 200 bytes
    each: 300 MB for the 1.5 M of 50,000 papers).
    """
    n = weights.norms.shape[0]
    step = max(1, BLOCK_ENTRIES // max(n, 1))
    rows: list[np.ndarray] = []
    cols_kept: list[np.ndarray] = []
    vals_kept: list[np.ndarray] = []
    for start in range(0, n, step):
        W = weights.block(start, min(n, start + step))
        for r in range(W.shape[0]):
            row = slice(W.indptr[r], W.indptr[r + 1])
            cols, vals = W.indices[row], W.data[row]
            strong = vals >= rule.min_weight
            cols, vals = cols[strong], vals[strong]
            best = np.lexsort((cols, -vals))[: rule.max_neighbours]
            rows.append(np.full(len(best), start + r, dtype=np.int64))
            cols_kept.append(cols[best].astype(np.int64))
            vals_kept.append(vals[best])
    if not rows:
        return []
    i, j = np.concatenate(rows), np.concatenate(cols_kept)
    w = np.concatenate(vals_kept)
    a, b = np.minimum(i, j), np.maximum(i, j)
    order = np.lexsort((i, b, a))  # by pair, then by the row that kept it
    a, b, w = a[order], b[order], w[order]
    last = np.ones(len(a), dtype=bool)  # the later row's entry of each pair
    last[:-1] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    return list(zip(a[last].tolist(), b[last].tolist(), w[last].tolist(), strict=True))


def _explained(
    a: Reached, b: Reached, spec: Mapping[str, float], scale: float
) -> tuple[SharedConcept, ...]:
    """What two papers share, strongest contribution first (ties by key).

    Each contribution is scaled as the edge's weight is, so they add up to it.
    """
    shared = []
    for key in a.keys() & b.keys():
        sa, how_a, via_a = a[key]
        sb, how_b, via_b = b[key]
        if how_a is How.EXACT and how_b is How.EXACT:
            how = How.EXACT
        else:
            how = How.TOPIC if How.TOPIC in (how_a, how_b) else How.BROADER
        weight = round(sa * sb * spec[key] * scale, 4)
        shared.append(SharedConcept(key, how, weight, (via_a, via_b)))
    shared.sort(key=lambda s: (-s.weight, s.concept_key))
    return tuple(s for s in shared if s.weight > 0)


def explain(shared: Sequence[SharedConcept], label: Mapping[str, str]) -> str:
    """ "LoRA; via broader LoRA (latent-space LoRA merging / LoRA-Curve); same topic PEFT"."""
    parts = []
    for s in shared:
        if s.how is How.EXACT:
            parts.append(label[s.concept_key])
        elif s.how is How.TOPIC:
            parts.append(f"same topic {label[s.concept_key]}")
        else:
            froms = " / ".join(dict.fromkeys(label.get(k, k) for k in s.via if k))
            parts.append(f"via broader {label[s.concept_key]} ({froms})")
    return "; ".join(parts)
