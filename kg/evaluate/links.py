"""How well a graph's paper-paper edges join related papers (``kg eval``'s link figures).

For gold files whose papers have a primary area and author keywords (the ICLR
format), a graph of ``n`` papers with ``E`` edges is measured by:

- **coverage**: the share of papers with at least one edge;
- **area precision at 5**: for each paper, the share of its 5 strongest
  neighbours (fewer if it has fewer; ties by id) that have its primary area,
  averaged over the papers with an area (a paper without neighbours counts 0);
- **keyword-pair recall**: take every pair of papers that share an author
  keyword used by 2 to 5 papers of the file (keywords compared after kg eval's
  normalisation: case, hyphens, plural); the share of those pairs the graph
  joins;
- **density**: ``2E / (n (n - 1))``.

The baselines build graphs with the same number of edges from a similarity
between abstracts: each paper's ``k`` most similar papers (the union of both
directions), with ``k`` the smallest that gives at least ``E`` edges, then the
weakest edges dropped to exactly ``E``. :func:`tfidf_similarity` is TF-IDF
cosine (scikit-learn, English stop words, sublinear term frequency);
:func:`embedding_similarity` is the cosine of the abstracts' MiniLM vectors.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kg.evaluate.matching import normalise_term

__all__ = [
    "LinkFigures",
    "link_figures",
    "keyword_pairs",
    "knn_edges",
    "tfidf_similarity",
    "embedding_similarity",
    "RARE_KEYWORD",
    "NEIGHBOURS",
]

#: A keyword is rare when this many papers of the file use it.
RARE_KEYWORD = range(2, 6)
#: Area precision looks at this many strongest neighbours.
NEIGHBOURS = 5

WeightedEdge = tuple[str, str, float]


@dataclass(frozen=True)
class LinkFigures:
    """The link figures of one graph (see the module docstring)."""

    system: str
    papers: int
    edges: int
    coverage: float
    area_precision: float | None
    keyword_pairs: int
    keyword_pair_recall: float | None
    density: float


def keyword_pairs(keywords: Mapping[str, Sequence[str]]) -> set[tuple[str, str]]:
    """Pairs of papers (sorted ids) that share a rare author keyword.

    >>> sorted(keyword_pairs({"a": ["Grokking"], "b": ["grokking"], "c": ["LLM"]}))
    [('a', 'b')]
    """
    users: dict[str, set[str]] = defaultdict(set)
    for pid, words in keywords.items():
        for word in words:
            if norm := normalise_term(word):
                users[norm].add(pid)
    pairs: set[tuple[str, str]] = set()
    for ids in users.values():
        if len(ids) in RARE_KEYWORD:
            pairs |= {(a, b) for a, b in itertools.combinations(sorted(ids), 2)}
    return pairs


def link_figures(
    system: str,
    papers: Sequence[str],
    edges: Sequence[WeightedEdge],
    areas: Mapping[str, str] | None = None,
    keywords: Mapping[str, Sequence[str]] | None = None,
) -> LinkFigures:
    """Measure ``edges`` (paper id pairs with weights) over ``papers``."""
    n = len(papers)
    neighbours: dict[str, list[tuple[float, str]]] = defaultdict(list)
    joined = set()
    for a, b, w in edges:
        neighbours[a].append((w, b))
        neighbours[b].append((w, a))
        joined.add((min(a, b), max(a, b)))
    precision = None
    if areas:
        shares = []
        for p in papers:
            if not areas.get(p):
                continue
            top = sorted(neighbours[p], key=lambda x: (-x[0], x[1]))[:NEIGHBOURS]
            same = sum(areas.get(q) == areas[p] for _, q in top)
            shares.append(same / len(top) if top else 0.0)
        precision = sum(shares) / len(shares) if shares else None
    pairs = keyword_pairs(keywords) if keywords else set()
    return LinkFigures(
        system=system,
        papers=n,
        edges=len(joined),
        coverage=sum(1 for p in papers if neighbours[p]) / n if n else 0.0,
        area_precision=precision,
        keyword_pairs=len(pairs),
        keyword_pair_recall=len(pairs & joined) / len(pairs) if pairs else None,
        density=2 * len(joined) / (n * (n - 1)) if n > 1 else 0.0,
    )


def knn_edges(similarity: np.ndarray, papers: Sequence[str], n_edges: int) -> list[WeightedEdge]:
    """The ``n_edges`` edges of a k-nearest-neighbour graph (see the module docstring).

    >>> S = np.array([[1, .9, .1], [.9, 1, .2], [.1, .2, 1]])
    >>> knn_edges(S, ["a", "b", "c"], 2)
    [('a', 'b', 0.9), ('b', 'c', 0.2)]
    """
    n = len(papers)
    if n < 2 or n_edges <= 0:
        return []
    S = np.array(similarity, dtype=np.float64)
    np.fill_diagonal(S, -np.inf)
    order = np.argsort(-S, axis=1, kind="stable")
    chosen: dict[tuple[int, int], float] = {}
    for k in range(1, n):
        for i in range(n):
            j = int(order[i, k - 1])
            chosen[(min(i, j), max(i, j))] = float(S[i, j])
        if len(chosen) >= n_edges:
            break
    kept = sorted(chosen.items(), key=lambda kv: (-kv[1], kv[0]))[:n_edges]
    return sorted((papers[i], papers[j], round(w, 6)) for (i, j), w in kept)


def tfidf_similarity(texts: Sequence[str]) -> np.ndarray:
    """Cosine similarity of the texts' TF-IDF vectors (English stop words, sublinear tf)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    X = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(texts)
    return np.asarray((X @ X.T).toarray())


def embedding_similarity(vectors: np.ndarray) -> np.ndarray:
    """Cosine similarity of unit-norm embedding rows."""
    V = np.asarray(vectors, dtype=np.float64)
    return np.asarray(V @ V.T)
