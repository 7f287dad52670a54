"""Every example query in queries/ on a build, its rows checked against the KnowledgeGraph
record the RDF was written from (so a wrong graph or a wrong query fails).

The test is parametrised over the directory: a new query fails until it has a check here
(``@checks("name.rq")``). Each check runs on the seeds built with the real model (marked
``model``) and with the fake embedder (fast, other concepts, the same graph code), so
properties are asserted, not one build's rows. tests/test_serve.py runs every query through
kg serve and SPARQLWrapper.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest

import kg as kg_package
from kg.extract import MODEL_NAME, MODEL_SHA256
from kg.model import Kind, Role
from kg.query import parse_term, run_query

ROOT = Path(__file__).resolve().parents[1]
QUERIES = sorted((ROOT / "queries").glob("*.rq"))
METHOD_ROLES = (Role.PROPOSES, Role.USES)
#: The roles the queries count as naming a concept (kg:mentionsConcept links are weaker).
CLAIMS = (Role.PROPOSES, Role.USES, Role.ADDRESSES)
CHECKS: dict[str, Callable[..., None]] = {}


def checks(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register the check of ``queries/name``."""

    def register(check: Callable[..., None]) -> Callable[..., None]:
        assert (ROOT / "queries" / name).is_file(), name
        CHECKS[name] = check
        return check

    return register


def rows(build, name, **bind):
    text = (ROOT / "queries" / name).read_text(encoding="utf-8")
    bindings = {k: parse_term(v) for k, v in bind.items()}
    result = run_query(build.out, text, bindings=bindings)
    return list(result.columns), result.values()


@pytest.fixture(scope="module")
def shared_build(fake_build, tmp_path_factory):
    """The fake build with one method used by papers of three different areas as well, so
    the queries about what several papers share have rows whatever extraction keeps (on the
    seeds, no method or problem is the own of two papers)."""
    from dataclasses import replace

    from conftest import Build

    from kg.build import write
    from kg.graph import EdgeRule, knowledge_graph, to_networkx
    from kg.model import Link

    kg = fake_build.kg
    areas = {f.key for f in kg.taxonomy.top_level()}
    top: dict[str, tuple[float, str]] = {}
    for link in kg.links:
        if link.role is Role.IN_FIELD and link.concept_key in areas:
            best = top.get(link.paper_id, (0.0, ""))
            top[link.paper_id] = max(best, (link.score, link.concept_key))
    one_per_area = {area: paper for paper, (_, area) in sorted(top.items())}
    papers = sorted(one_per_area.values())[:3]
    method = next(c.key for c in kg.concepts if c.kind is Kind.METHOD)
    text = {p.id: p.text for p in kg.papers}
    cited = {
        x.paper_id: x.sentence for x in kg.links if x.sentence and x.sentence in text[x.paper_id]
    }
    extra = [Link(p, method, Role.USES, 0.9, cited[p]) for p in papers]
    held = {(x.paper_id, x.concept_key) for x in kg.links}
    links = sorted(
        [*kg.links, *(x for x in extra if (x.paper_id, x.concept_key) not in held)],
        key=lambda x: (x.paper_id, x.concept_key),
    )
    record = knowledge_graph(kg.papers, kg.concepts, links, kg.taxonomy, EdgeRule())
    built = replace(fake_build.built, kg=record, graph=to_networkx(record))
    out = tmp_path_factory.mktemp("shared-build")
    write(built, out)
    return Build(built, out)


@pytest.fixture(
    scope="module", params=["fake", "shared", pytest.param("seed", marks=pytest.mark.model)]
)
def build(request):
    """The seeds built with the fake embedder, the same with a method several papers share,
    or the seeds built with the real model."""
    built = request.getfixturevalue(f"{request.param}_build")
    built.real = request.param == "seed"
    built.shares = request.param == "shared"
    return built


@pytest.fixture(scope="module")
def record(build):
    """Look-ups over the record: labels, kinds, each paper's concepts by role."""
    return _record(build)


def _record(build):
    kg = build.kg

    class R:
        label = {c.key: c.label for c in kg.concepts}
        kind = {c.key: c.kind for c in kg.concepts}
        concept = {c.key: c for c in kg.concepts}
        title = dict(kg.labels)
        by_role: dict[Role, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))

    for link in kg.links:
        R.by_role[link.role][link.paper_id].add(link.concept_key)
    return R


@pytest.mark.parametrize("query_file", QUERIES, ids=lambda p: p.name)
def test_shipped_query(query_file, build, record):
    """Every file in queries/ runs on the build and gives the rows its check derives."""
    check = CHECKS.get(query_file.name)
    assert check, f"queries/{query_file.name} has no check: add one with @checks in this file"
    check(build, record)


def methods_of(record, paper: str) -> set[str]:
    return record.by_role[Role.PROPOSES][paper] | record.by_role[Role.USES][paper]


@checks("papers-sharing-a-method.rq")
def check_papers_sharing_a_method(build, record):
    papers = [p.id for p in build.kg.papers]
    expected = set()
    for p in papers:
        for q in papers:
            common = methods_of(record, p) & methods_of(record, q)
            if p != q and common:
                labels = frozenset(record.label[m] for m in common)
                expected.add((record.title[p], record.title[q], len(common), labels))
    columns, got = rows(build, "papers-sharing-a-method.rq")
    assert columns == ["paper", "other", "shared", "methods"]
    assert {(a, b, int(n), frozenset(m.split(", "))) for a, b, n, m in got} == expected
    assert expected or not build.shares, "papers share a method"
    if not expected:
        return
    given = max(papers, key=lambda p: sum(r[0] == record.title[p] for r in expected))
    _, one = rows(build, "papers-sharing-a-method.rq", given=f"paper:{given}")
    assert {r[1] for r in one} == {b for a, b, _, _ in expected if a == record.title[given]}
    assert [int(r[2]) for r in one] == sorted((int(r[2]) for r in one), reverse=True)


@checks("common-problems.rq")
def check_common_problems(build, record):
    count = Counter(c for p, cs in record.by_role[Role.ADDRESSES].items() for c in cs)
    expected = sorted(((record.label[c], n) for c, n in count.items()), key=lambda r: (-r[1], r[0]))
    _, got = rows(build, "common-problems.rq")
    assert [(p, int(n)) for p, n in got] == expected[:20]


@checks("fields-by-paper-count.rq")
def check_fields_by_paper_count(build, record):
    taxonomy = build.kg.taxonomy
    count = Counter(c for cs in record.by_role[Role.IN_FIELD].values() for c in cs)
    expected = set()
    for key, n in count.items():
        parent = taxonomy.by_key(key).broader
        expected.add((record.label[key], taxonomy.by_key(parent).label if parent else "", n))
    _, got = rows(build, "fields-by-paper-count.rq")
    assert {(f, a, int(n)) for f, a, n in got} == expected
    assert [int(n) for _, _, n in got] == sorted((int(n) for _, _, n in got), reverse=True)


@checks("proposed-vs-used.rq")
def check_proposed_versus_used(build, record):
    proposers = Counter(c for cs in record.by_role[Role.PROPOSES].values() for c in cs)
    users = Counter(c for cs in record.by_role[Role.USES].values() for c in cs)
    expected = Counter(
        (
            record.label[m],
            proposers[m],
            users[m],
            "proposed" if proposers[m] else "only used",
        )
        for m in set(proposers) | set(users)
    )
    _, got = rows(build, "proposed-vs-used.rq")
    assert Counter((m, int(p), int(u), s) for m, p, u, s in got) == expected
    assert any(s == "proposed" for *_, s in got) and any(s == "only used" for *_, s in got)


@checks("papers-of-a-field.rq")
def check_papers_of_a_field(build, record):
    taxonomy = build.kg.taxonomy
    area = max(
        taxonomy.top_level(),
        key=lambda f: sum(f.key in cs for cs in record.by_role[Role.IN_FIELD].values()),
    )
    under = {
        f.key for f in taxonomy.fields if area.key in {a.key for a in taxonomy.ancestors(f.key)}
    }
    under.add(area.key)
    expected = {
        (
            area.label,
            record.title[p],
            frozenset(record.label[m] for m in record.by_role[Role.PROPOSES][p]),
        )
        for p, fields in record.by_role[Role.IN_FIELD].items()
        if fields & under
    }
    _, got = rows(build, "papers-of-a-field.rq", given=f"<{area.iri}>")
    assert {(f, p, frozenset(m.split(", ")) - {""}) for f, p, m in got} == expected
    assert len(expected) >= 2


@checks("strongest-edges.rq")
def check_strongest_edges_and_why(build, record):
    from kg.graph import shares_graph

    P = shares_graph(build.kg)
    edges = sorted(
        build.kg.edges,
        key=lambda e: (-e.weight, record.title[e.a], record.title[e.b]),
    )[:10]
    expected = [
        (
            record.title[e.a],
            record.title[e.b],
            e.weight,
            P.edges[f"paper:{e.a}", f"paper:{e.b}"]["explanation"],
        )
        for e in edges
    ]
    _, got = rows(build, "strongest-edges.rq")
    assert [(a, b, float(w), why) for a, b, w, why in got] == expected


@checks("edge-reasons.rq")
def check_edge_reasons(build, record):
    expected = Counter(
        (
            record.title[e.a],
            record.title[e.b],
            record.label[s.concept_key],
            s.how.value,
            round(s.weight, 4),
            record.label[s.via[0] or s.concept_key],
            record.label[s.via[1] or s.concept_key],
        )
        for e in build.kg.edges
        for s in e.shared
    )
    _, got = rows(build, "edge-reasons.rq")
    assert Counter((a, b, c, h, float(w), v1, v2) for a, b, c, h, w, v1, v2 in got) == expected
    assert len({h for _, _, _, h, *_ in got}) >= 2  # reasons of more than one kind compared


@checks("bridging-concepts.rq")
def check_concepts_bridging_areas(build, record):
    taxonomy = build.kg.taxonomy
    areas = {f.key for f in taxonomy.top_level()}
    best: dict[str, set[str]] = {}
    scores = defaultdict(dict)
    for link in build.kg.links:
        if link.role is Role.IN_FIELD and link.concept_key in areas:
            scores[link.paper_id][link.concept_key] = round(link.score, 4)
    for paper, s in scores.items():
        top = max(s.values())
        best[paper] = {a for a, v in s.items() if v == top}
    reach = defaultdict(set)
    for link in build.kg.links:
        if link.role in CLAIMS and link.paper_id in best:
            reach[link.concept_key].add(link.paper_id)
    expected = set()
    for c, papers in reach.items():
        primary = set().union(*(best[p] for p in papers))
        if len(primary) >= 2:
            labels = frozenset(record.label[a] for a in primary)
            expected.add((record.label[c], record.kind[c].value, len(primary), len(papers), labels))
    _, got = rows(build, "bridging-concepts.rq")
    assert {(c, k, int(a), int(p), frozenset(w.split("; "))) for c, k, a, p, w in got} == expected
    assert expected or not build.shares, "papers of several areas share a method"


@checks("concept-labels.rq")
def check_alt_labels_and_broader_concepts(build, record):
    expected = set()
    for c in build.kg.concepts:
        if c.kind is Kind.FIELD or not (c.alt_labels or c.broader):
            continue
        alts = frozenset(c.alt_labels)
        ups = frozenset(record.label[b] for b in c.broader)
        expected.add((c.label, c.kind.value, alts, ups))
    _, got = rows(build, "concept-labels.rq")
    split = lambda v: frozenset(v.split(" | ")) - {""}  # noqa: E731
    assert {(c, k, split(a), split(b)) for c, k, a, b in got} == expected
    with_both = next(c for c in build.kg.concepts if c.alt_labels and c.kind is not Kind.FIELD)
    _, one = rows(build, "concept-labels.rq", c=f"concept:{with_both.key}")
    assert [r[0] for r in one] == [with_both.label]


@checks("isolated-papers.rq")
def check_papers_with_no_shared_concepts(build, record):
    joined = {p for e in build.kg.edges for p in (e.a, e.b)}
    expected = sorted(
        (
            record.title[p.id],
            len(methods_of(record, p.id) | record.by_role[Role.ADDRESSES][p.id]),
        )
        for p in build.kg.papers
        if p.id not in joined
    )
    _, got = rows(build, "isolated-papers.rq")
    assert [(p, int(n)) for p, n in got] == expected


@checks("method-reuse.rq")
def check_papers_using_a_method_another_proposes(build, record):
    below = defaultdict(set)  # method -> concepts whose broader chain reaches it
    for c in build.kg.concepts:
        todo, seen = [c.key], set()
        while todo:
            for b in record.concept[todo.pop()].broader:
                if b not in seen and record.kind[b] is not Kind.FIELD:
                    seen.add(b)
                    todo.append(b)
        for b in seen:
            below[b].add(c.key)
    expected = set()
    for a, proposed in list(record.by_role[Role.PROPOSES].items()):
        for m in proposed:
            for b in record.title:
                if b == a:
                    continue
                if m in record.by_role[Role.USES][b]:
                    expected.add(
                        (record.label[m], record.title[a], record.title[b], record.label[m])
                    )
                for x in below[m] & methods_of(record, b):
                    expected.add(
                        (record.label[m], record.title[a], record.title[b], record.label[x])
                    )
    _, got = rows(build, "method-reuse.rq")
    assert {tuple(r) for r in got} == expected


@checks("provenance.rq")
def check_provenance(build, record):
    _, got = rows(build, "provenance.rq")
    facts = Counter((what, value) for what, value in got)
    assert facts[("kg version", kg_package.__version__)] == 1
    model = f"{MODEL_NAME} sha256:{MODEL_SHA256}" if build.real else "FakeEmbedder"
    assert facts[("model", model)] == 1
    for path in sorted((ROOT / "seeds").glob("*.txt")):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert facts[("input file", f"{path} sha256:{digest}")] == 1
    taxonomy = hashlib.sha256((ROOT / "ontology" / "fields.ttl").read_bytes()).hexdigest()
    assert ("field taxonomy", f"ontology/fields.ttl (shipped with kg) sha256:{taxonomy}") in facts
    assert ("setting extract.max_methods", "8") in facts
    assert not any(what == "generated at" for what, _ in got)  # no time unless asked
    assert any(what == "title" and "37" in value for what, value in got)


@checks("proposed-methods.rq")
def check_proposed_methods(build, record):
    expected = sorted(
        [record.title[link.paper_id], record.label[link.concept_key]]
        for link in build.kg.links
        if link.role is Role.PROPOSES
    )
    columns, got = rows(build, "proposed-methods.rq")
    assert columns == ["paper", "method"] and got == expected and got


@checks("shared-concepts.rq")
def check_shared_concepts(build, record):
    papers = Counter(link.concept_key for link in build.kg.links if link.role in CLAIMS)
    expected = sorted(
        ([record.label[k], record.kind[k].value, str(n)] for k, n in papers.items() if n > 1),
        key=lambda r: (-int(r[2]), r[0]),
    )
    assert rows(build, "shared-concepts.rq")[1] == expected


@checks("papers-by-area.rq")
def check_papers_by_area(build, record):
    """Each paper counts for the broad area of its most confident field (of each, if tied)."""
    taxonomy = build.kg.taxonomy

    def area(key: str) -> str:
        while taxonomy.by_key(key).broader:
            key = taxonomy.by_key(key).broader
        return key

    scores: dict[str, dict[str, float]] = defaultdict(dict)
    for link in build.kg.links:
        if link.role is Role.IN_FIELD:
            scores[link.paper_id][link.concept_key] = round(link.score, 4)
    per_area = Counter()
    for fields in scores.values():
        top = max(fields.values())
        per_area.update({taxonomy.by_key(area(f)).label for f, v in fields.items() if v == top})
    expected = sorted(per_area.items(), key=lambda r: (-r[1], r[0]))
    _, got = rows(build, "papers-by-area.rq")
    assert [(a, int(n)) for a, n in got] == expected
    # every paper with a field counts once at least (one outside the taxonomy has none)
    assert sum(per_area.values()) >= len(scores) and set(scores) <= {p.id for p in build.kg.papers}


@checks("evidence.rq")
def check_evidence(build, record):
    columns, got = rows(build, "evidence.rq")
    assert columns == ["paper", "role", "concept", "confidence", "evidence"]
    text = {record.title[p.id]: p.text for p in build.kg.papers}
    assert all(evidence in text[paper] for paper, _, _, _, evidence in got)
    expected = sorted(
        (record.title[x.paper_id], record.label[x.concept_key], round(x.score, 4), x.sentence)
        for x in build.kg.links
    )
    assert sorted((p, c, float(s), e) for p, _, c, s, e in got) == expected


def _persons(build) -> dict[str, tuple[str, set[str]]]:
    """Each person of the record (kg.ingest.person_key): the least name form and their papers."""
    from kg.ingest import person_key

    forms: dict[str, set[str]] = defaultdict(set)
    papers: dict[str, set[str]] = defaultdict(set)
    for p in build.kg.papers:
        for name in p.authors:
            if key := person_key(name):
                forms[key].add(name)
                papers[key].add(p.id)
    return {key: (min(forms[key]), papers[key]) for key in forms}


@checks("author-papers.rq")
def check_author_papers(build, record):
    year = {p.id: p.year for p in build.kg.papers}
    expected = {
        (name, record.title[p], "" if year[p] is None else str(year[p]))
        for name, papers in _persons(build).values()
        for p in papers
    }
    columns, got = rows(build, "author-papers.rq")
    assert columns == ["name", "paper", "year"]
    assert {(a, b, c or "") for a, b, c in got} == expected


@checks("author-concepts.rq")
def check_author_concepts(build, record):
    expected = Counter()
    for name, papers in _persons(build).values():
        for p in papers:
            for c in set().union(*(record.by_role[r][p] for r in CLAIMS)):
                expected[name, record.label[c], record.kind[c].value] += 1
    columns, got = rows(build, "author-concepts.rq")
    assert columns == ["name", "concept", "kind", "papers"]
    assert {(a, c, k): int(n) for a, c, k, n in got} == dict(expected)


@pytest.mark.parametrize("name", ["author-papers.rq", "author-concepts.rq"])
def test_author_queries_on_papers_with_authors(formats_build, name):
    """The seeds name no authors; the format fixtures do, some in several name forms."""
    assert _persons(formats_build), "the fixtures name authors"
    CHECKS[name](formats_build, _record(formats_build))
    assert rows(formats_build, name)[1], "rows for papers with authors"
