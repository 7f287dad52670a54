"""Extraction: per-paper purity with the fake model, real KeyBERT + MiniLM on new text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.extract import Extractor
from kg.extract.candidates import Candidate
from kg.extract.classify import FEATURE_NAMES, features
from kg.extract.embed import EMBEDDING_DIM
from kg.extract.phrases import is_generic, occurrences
from kg.model import Kind, Paper, Role
from kg.text import clean

# Written for these tests; not from the seeds or the evaluation data.
ABSTRACTS = {
    "rl": "Exploration in reinforcement learning with sparse rewards remains difficult. "
    "We propose Curio, an intrinsic reward based on the prediction error of a learned "
    "dynamics model. Curio improves sample efficiency of Proximal Policy Optimization (PPO) "
    "on hard-exploration Atari games.",
    "seg": "Medical image segmentation suffers from scarce annotations. We introduce "
    "SegMix-Net, a semi-supervised network that mixes labelled and unlabelled scans. "
    "On two MRI benchmarks SegMix-Net outperforms U-Net baselines by a wide margin.",
    "opt": "We study nonconvex stochastic optimization with heavy-tailed gradient noise. "
    "We prove that Adam with gradient clipping converges at the optimal rate, and present "
    "experiments on language model pretraining.",
}


def papers():
    return [Paper(id=k, abstract=v, text=clean(v)) for k, v in ABSTRACTS.items()]


def by_kind(mentions):
    out = {k: [] for k in Kind}
    for m in mentions:
        out[m.kind].append(m)
    return out


def test_per_paper_result_does_not_depend_on_the_batch(fake_embedder):
    extractor = Extractor(fake_embedder)
    together = extractor.extract(papers())
    alone = {p.id: extractor.extract([p])[p.id] for p in papers()}
    assert together == alone


def test_every_paper_gets_a_method_and_a_field_and_valid_scores(fake_embedder):
    """A problem only where one is likely enough: precision first, no filler."""
    result = Extractor(fake_embedder).extract(papers())
    for paper in papers():
        kinds = by_kind(result[paper.id])
        assert kinds[Kind.METHOD] and kinds[Kind.FIELD], (paper.id, result[paper.id])
        for m in result[paper.id]:
            assert 0.0 <= m.score <= 1.0
            assert m.sentence in paper.text
            if m.kind is not Kind.FIELD:
                assert not is_generic(m.text)


@pytest.mark.model
def test_real_model_finds_proposed_methods_problems_and_fields(real_model):
    result = Extractor(real_model).extract(papers())
    proposed = {p.id: {m.text for m in result[p.id] if m.role is Role.PROPOSES} for p in papers()}
    assert "Curio" in proposed["rl"]
    assert "SegMix-Net" in proposed["seg"]
    rl = by_kind(result["rl"])
    assert "PPO" in {m.text for m in rl[Kind.METHOD]}
    assert {m.expansion for m in rl[Kind.METHOD] if m.text == "PPO"} == {
        "Proximal Policy Optimization"
    }
    assert any("reinforcement" in m.text for m in rl[Kind.FIELD])
    seg_problems = " ".join(m.text.lower() for m in by_kind(result["seg"])[Kind.PROBLEM])
    assert "segmentation" in seg_problems
    opt = by_kind(result["opt"])
    assert any("optimization" in m.text for m in opt[Kind.FIELD])
    assert any("stochastic optimization" in m.text.lower() for m in opt[Kind.PROBLEM])
    # kept mentions only: a weak mention is a candidate that links only if another paper names it
    assert not any(m.text == "heavy-tailed gradient" for m in opt[Kind.METHOD] if m.selected)


def test_an_abbreviated_name_is_a_method_unless_it_names_a_task():
    from kg.extract.refine import _acronym_kind

    assert _acronym_kind("Proximal Policy Optimization") is Kind.METHOD
    assert _acronym_kind("Stochastic Variational Inference") is Kind.METHOD
    assert _acronym_kind("Named Entity Recognition") is Kind.PROBLEM
    assert _acronym_kind("Graph Neural Network") is Kind.METHOD


def test_rules_only_extraction_still_types_every_paper(fake_embedder):
    """Without the learned classifier (as when training it) the rules and prototypes decide.

    Every paper gets a method and fields; "exploration", a word of general
    English, is no concept alone, and the RL paper's fields say what it is about.
    """
    result = Extractor(fake_embedder, classifier=None).extract(papers())
    for paper in papers():
        kinds = {m.kind for m in result[paper.id] if m.selected}
        assert {Kind.METHOD, Kind.FIELD} <= kinds, result[paper.id]
    assert all(Kind.PROBLEM in {m.kind for m in result[p]} for p in ("seg", "opt"))
    assert "exploration" not in {m.text for m in result["rl"] if m.kind is not Kind.FIELD}
    assert "reinforcement-learning" in {m.text for m in result["rl"] if m.kind is Kind.FIELD}


def test_a_proposed_name_keeps_the_confidence_such_names_earn():
    import numpy as np

    from kg.extract.candidates import Candidate
    from kg.extract.classify import FEATURE_NAMES
    from kg.extract.select import CandidateTable, classified

    # A classifier that doubts everything: "not a concept" with probability 0.8.
    doubtful = _constant_classifier(np.log(0.2 / 0.8), [0.0, 0.0, -30.0])
    cands = [
        Candidate("Quokka-Net", 0, Kind.METHOD, proposed=True),
        Candidate("message passing", 0, Kind.METHOD, proposed=True),
    ]
    table = CandidateTable(cands, [0.5, 0.5], np.zeros((2, len(FEATURE_NAMES))))
    scored = {s.candidate.text: s for s in classified(table, doubtful)}
    assert scored["Quokka-Net"].kind is Kind.METHOD
    assert scored["Quokka-Net"].prob == pytest.approx(0.7)
    assert scored["message passing"].prob == pytest.approx(0.2)


def _constant_classifier(concept_logit: float, kind_logits: list[float]):
    """A classifier that gives every candidate the same concept log-odds and kind scores
    (method, problem, another kind; -30: never that kind), under thresholds of 0.5."""
    import numpy as np

    from kg.extract.classify import FEATURE_NAMES, HAND, CandidateClassifier, Layer

    n = len(FEATURE_NAMES)
    return CandidateClassifier(
        concept=Layer(np.zeros((n, 1)), np.array([concept_logit])),
        kind=(Layer(np.zeros((n, 3)), np.array(kind_logits)),),
        mean=np.zeros(HAND),
        scale=np.ones(HAND),
        thresholds={"method": 0.5, "problem": 0.5},
        trained_on="a test",
    )


def _unsure_classifier():
    """A concept with probability 0.15, split evenly between method and problem (0.075 each,
    below the floor at which a kind's likeliest phrase is still kept), under thresholds of
    0.5."""
    import numpy as np

    return _constant_classifier(np.log(0.15 / 0.85), [0.0, 0.0, -30.0])


def test_a_title_phrase_is_a_concept_as_likely_as_it_is_one_at_all():
    import numpy as np

    from kg.extract.candidates import Candidate
    from kg.extract.classify import FEATURE_NAMES
    from kg.extract.select import CandidateTable, classified

    unsure = _unsure_classifier()
    cands = [Candidate("wavelet packet coding", 0), Candidate("subband filter design", 1)]
    X = np.zeros((2, len(FEATURE_NAMES)))
    titled = {
        s.candidate.text: s for s in classified(CandidateTable(cands, [0.5, 0.5], X, True), unsure)
    }
    assert titled["wavelet packet coding"].kind is not None
    assert titled["wavelet packet coding"].prob == pytest.approx(0.15)
    assert titled["subband filter design"].kind is None  # the same doubt, outside the title
    untitled = classified(CandidateTable(cands, [0.5, 0.5], X, False), unsure)
    assert all(s.kind is None for s in untitled)  # no title: the first sentence is no title


def test_a_baseline_the_paper_only_compares_against_is_never_kept_unless_its_own():
    baseline = {"compared": True}
    assert _kept(["beam search", "lattice decoding"], **{"beam search": baseline}) == [
        "lattice decoding"
    ]
    mine = {"compared": True, "proposed": True}  # "our X outperforms ... than X-0"
    assert "beam search" in _kept(["beam search", "lattice decoding"], **{"beam search": mine})


def test_what_prior_work_uses_is_never_the_papers_method_but_may_be_its_problem():
    prior = {"prior": True}
    kept = ["beam search", "lattice decoding"]
    assert _kept(kept, **{"beam search": prior}) == ["lattice decoding"]
    assert "beam search" in _kept(kept, kind="problem", **{"beam search": prior})
    assert "beam search" in _kept(kept, **{"beam search": {"prior": True, "proposed": True}})


def test_a_phrase_written_two_ways_is_kept_once():
    kept = _kept(["non-convex stochastic optimization", "nonconvex stochastic optimization"])
    assert kept == ["non-convex stochastic optimization"]
    kept = _kept(["data curation", "data-curation", "Thompson sampling"])
    assert sorted(kept) == ["Thompson sampling", "data curation"]


def test_a_phrase_led_by_a_free_modifier_is_never_kept():
    free = {"free_modifier": True}
    assert _kept(["standard optimisers", "Thompson sampling"], **{"standard optimisers": free}) == [
        "Thompson sampling"
    ]


def test_a_phrase_cut_before_its_head_is_never_kept():
    cut = {"modifier": True}
    assert _kept(["structured adapter", "adapter manifold"], **{"structured adapter": cut}) == [
        "adapter manifold"
    ]


# --- classifier features ----------------------------------------------------

_TEXT = st.text(alphabet="ab _-é1\u00b2.", max_size=25)


@given(phrase=_TEXT.filter(bool), text=_TEXT)
def test_occurrences_counts_what_the_whole_word_pattern_finds(phrase: str, text: str) -> None:
    pattern = rf"(?<!\w){re.escape(phrase)}(?!\w)"
    assert occurrences(phrase, text) == len(re.findall(pattern, text))


@given(phrase=_TEXT.filter(bool), text=_TEXT)
def test_a_phrase_has_a_word_either_side_of_each_occurrence(phrase: str, text: str) -> None:
    from kg.extract.classify import _neighbours

    before, after = _neighbours(phrase, text)
    assert len(before) == len(after) == occurrences(phrase, text)
    # the words themselves, by a pattern: a word, then spaces only, then the phrase
    starts = [m.start() for m in re.finditer(rf"(?<!\w)(?={re.escape(phrase)}(?!\w))", text)]
    taken, end = [], -1
    for i in starts:  # whole-word occurrences without overlaps, as occurrences() counts
        if i >= end:
            taken.append(i)
            end = i + len(phrase)
    expected = []
    for i in taken:
        m = re.search(r"([\w-]+) +\Z", text[max(0, i - 40) : i])
        expected.append(m.group(1) if m else "")
    assert before == expected


def test_a_phrase_written_where_a_verb_goes_says_so_in_its_features() -> None:
    """ "can hide X": a verb starts it; "the agent controls a browser": a verb ends it."""
    import numpy as np

    text = (
        "Pooling can hide cross-group heterogeneity. The agent controls a browser. "
        "Gradient clipping, to clip, helps."
    )
    cands = [
        Candidate("hide cross-group heterogeneity", 0),
        Candidate("agent controls", 1),
        Candidate("Gradient clipping", 2),
    ]
    zeros = np.zeros((3, EMBEDDING_DIM))
    X = features(cands, [0.5] * 3, zeros, zeros, text, 3)
    assert X[:, FEATURE_NAMES.index("verb_before")].tolist() == [1.0, 0.0, 0.0]
    assert X[:, FEATURE_NAMES.index("determiner_after")].tolist() == [0.0, 1.0, 0.0]


def test_occurrences_counts_whole_words_only() -> None:
    assert occurrences("lora", "lora, qlora and lora-based lora_x") == 2
    assert occurrences("aa", "aaa aa aa") == 2


def _sure_classifier(kind: str):
    """A classifier sure that every candidate is a concept of ``kind``."""
    logits = {"method": [30.0, 0.0, -30.0], "problem": [0.0, 30.0, -30.0]}[kind]
    return _constant_classifier(30.0, logits)


def _kept(
    texts: list[str],
    kind: str = "method",
    titled: bool = False,
    sentences: list[str] | None = None,
    **flags,
) -> list[str]:
    import numpy as np

    from kg.extract.candidates import Candidate
    from kg.extract.classify import FEATURE_NAMES
    from kg.extract.select import CandidateTable, classified, select_mentions

    # The first phrase stands in the first sentence (the title, if ``titled``).
    cands = [Candidate(t, int(i > 0), **flags.get(t, {})) for i, t in enumerate(texts)]
    X = np.zeros((len(cands), len(FEATURE_NAMES)))
    scored = classified(
        CandidateTable(cands, [0.5] * len(cands), X, titled), _sure_classifier(kind)
    )
    limits = {Kind.METHOD: 8, Kind.PROBLEM: 5}
    sentences = sentences or [texts[0], " ".join(texts[1:])]
    return [m.text for m in select_mentions(scored, sentences, limits, 0.0)]


def test_a_wording_cue_yields_only_to_a_kind_model_sure_of_the_other_kind():
    import numpy as np

    from kg.extract.candidates import Candidate
    from kg.extract.classify import FEATURE_NAMES
    from kg.extract.select import _CUE_OVERRULED, CandidateTable, classified

    # Sure it is a concept (0.9); of method and problem, a little more method than the share
    # at which the kind model overrules a cue, or a little less.
    def method_share(share: float):  # type: ignore[no-untyped-def]
        return _constant_classifier(np.log(0.9 / 0.1), [np.log(share), np.log(1 - share), -30.0])

    sure, leaning = method_share(_CUE_OVERRULED + 0.05), method_share(_CUE_OVERRULED - 0.05)
    cands = [
        Candidate("multi-token prediction", 1, Kind.PROBLEM),  # "X accelerates decoding"
        Candidate("learning of sparse parities", 1, Kind.PROBLEM, studied=True),
        Candidate("beam search", 1, Kind.METHOD),
    ]
    table = CandidateTable(cands, [0.5] * 3, np.zeros((3, len(FEATURE_NAMES))))
    overruled = {s.candidate.text: s for s in classified(table, sure)}
    assert overruled["multi-token prediction"].kind is Kind.METHOD
    assert overruled["multi-token prediction"].likeliest is Kind.METHOD
    assert overruled["learning of sparse parities"].kind is Kind.PROBLEM  # its subject stays,
    assert overruled["learning of sparse parities"].likeliest is Kind.PROBLEM  # weak or not
    kept = {s.candidate.text: s for s in classified(table, leaning)}
    assert kept["multi-token prediction"].kind is Kind.PROBLEM
    assert kept["multi-token prediction"].prob == pytest.approx(0.9)


def test_a_class_whose_modifier_ends_in_an_adjective_names_no_member():
    # "the core statistical mechanisms": its member would be "core statistical", no phrase.
    kept = _kept(["core statistical mechanisms", "sparse coding algorithms", "Thompson sampling"])
    assert sorted(kept) == ["Thompson sampling", "sparse coding"]


def test_correct_and_other_judgements_are_weak_modifiers():
    from kg.extract.phrases import trim

    assert trim("correct in-context learning solution".split()) == [
        "in-context",
        "learning",
        "solution",
    ]
    # An author's praise is no part of a concept: "a meaningful repair mechanism".
    assert trim("meaningful repair mechanism".split()) == ["repair", "mechanism"]
    assert trim("insightful soil samples".split()) == ["soil", "samples"]
    assert trim("essential supremum".split()) == ["essential", "supremum"]  # a term of its own


def test_umbrellas_are_no_papers_concept_and_a_class_is_its_member():
    kept = _kept(["LLMs", "bandit algorithms", "gradient boosting algorithms", "Thompson sampling"])
    assert sorted(kept) == ["Thompson sampling", "gradient boosting"]
    # What the authors list or the paper proposes is its own, umbrella or not; a title that
    # names it ("... in Large Language Models") does not make it so.
    llms = ["large language models", "Thompson sampling"]
    assert "large language models" not in _kept(llms, titled=True)
    assert "large language models" not in _kept(llms, titled=False)
    assert "LLMs" in _kept(["LLMs", "Thompson sampling"], LLMs={"keyword": True})
    proposed = {"cue": Kind.METHOD, "proposed": True}
    assert "LLMs" in _kept(["LLMs", "Thompson sampling"], LLMs=proposed)
    # A class of problems is its member too: "program repair tasks" is program repair.
    assert "program repair" in _kept(["program repair tasks", "Thompson sampling"], "problem")


def test_a_proposed_loss_or_quantity_is_no_method():
    proposed = {"cue": Kind.METHOD, "proposed": True}
    texts = ["position prediction loss", "Quokka-Net", "Thompson sampling"]
    kept = _kept(texts, **{"position prediction loss": proposed, "Quokka-Net": proposed})
    assert "Quokka-Net" in kept and "position prediction loss" not in kept


def test_the_kind_of_thing_beside_a_proposed_name_is_not_a_second_proposal():
    flags = {"cue": Kind.METHOD, "proposed": True}
    kept = _kept(
        ["random masking", "Dual-MTP", "MTP training framework"],  # the last two: one sentence
        **{"Dual-MTP": flags, "MTP training framework": flags},
    )
    assert sorted(kept) == ["Dual-MTP", "random masking"]
    # Alone, the framework is what the paper proposes.
    assert _kept(["MTP training framework"], **{"MTP training framework": flags}) == [
        "MTP training framework"
    ]


def test_a_proposed_name_is_kept_however_little_its_vector_says_but_not_its_kind_noun():
    import numpy as np

    from kg.extract.classify import FEATURE_NAMES
    from kg.extract.select import CandidateTable, classified, select_mentions

    proposed = {"cue": Kind.METHOD, "proposed": True}
    rows = [  # text, KeyBERT relevance, flags
        ("Zorblax", 0.05, proposed),
        ("framework Rob-Zed", 0.4, proposed),
        ("Rob-Zed", 0.05, proposed),
        ("graph matching", 0.4, {}),
        ("spectral clustering", 0.05, {}),
    ]
    cands = [Candidate(t, 1, **flags) for t, _, flags in rows]
    table = CandidateTable(cands, [r for _, r, _ in rows], np.zeros((5, len(FEATURE_NAMES))))
    scored = classified(table, _sure_classifier("method"))
    sentences = ["A title", "We propose a framework Rob-Zed and Zorblax for graph matching."]
    limits = {Kind.METHOD: 8, Kind.PROBLEM: 5}
    kept = {m.text for m in select_mentions(scored, sentences, limits, 0.15)}
    assert kept == {"Zorblax", "Rob-Zed", "graph matching"}


def test_a_phrase_the_text_only_writes_before_of_is_cut_short():
    phrases = ["hierarchical mixture", "Thompson sampling"]
    said = ["We train a hierarchical mixture of experts.", "Thompson sampling of arms helps."]
    assert _kept(phrases, sentences=said) == []
    said[1] += " We compare Thompson sampling with UCB."  # used on its own too
    assert _kept(phrases, sentences=said) == ["Thompson sampling"]


def test_what_a_paper_studies_is_kept_as_its_wording_types_it_when_the_model_doubts():
    import numpy as np

    from kg.extract.classify import FEATURE_NAMES
    from kg.extract.select import CandidateTable, classified

    unsure = _unsure_classifier()
    cands = [
        Candidate("learning of sparse parities", 1, Kind.PROBLEM, studied=True),
        Candidate("subband filter design", 1, Kind.PROBLEM),
    ]
    X = np.zeros((2, len(FEATURE_NAMES)))
    scored = {s.candidate.text: s for s in classified(CandidateTable(cands, [0.5, 0.5], X), unsure)}
    assert scored["learning of sparse parities"].kind is Kind.PROBLEM
    assert scored["learning of sparse parities"].prob == pytest.approx(0.15)
    assert scored["subband filter design"].kind is None  # the same doubt, not its subject


def test_the_kind_network_reads_its_hidden_layer_and_round_trips_through_json(tmp_path):
    import json

    import numpy as np

    from kg.errors import ModelError
    from kg.extract.classify import (
        FEATURE_NAMES,
        HAND,
        CandidateClassifier,
        Layer,
        load_classifier,
    )

    n = len(FEATURE_NAMES)
    hidden = np.zeros((n, 2))
    hidden[0, 0], hidden[0, 1] = 1.0, -1.0  # one ReLU sees relevance, one its negation
    out = np.array([[0.0, 10.0, 0.0], [0.0, 10.0, 0.0]])  # either one says "problem"
    clf = CandidateClassifier(
        concept=Layer(np.zeros((n, 1)), np.array([30.0])),
        kind=(Layer(hidden, np.zeros(2)), Layer(out, np.array([5.0, 0.0, 0.0]))),
        mean=np.full(HAND, 1.0),
        scale=np.full(HAND, 0.5),
        thresholds={"method": 0.5, "problem": 0.5},
        trained_on="a test",
    )
    X = np.zeros((3, n))
    X[:, 0] = [2.0, 0.0, 1.0]  # standardised: 2, -2 and 0
    # Far from the mean either way is a problem, at the mean a method: no linear model
    # over relevance says that, and without the ReLUs the two units would cancel out.
    assert list(clf.probabilities(X).argmax(axis=1)) == [2, 2, 1]
    path = tmp_path / "classifier.json"
    path.write_text(clf.to_json(), encoding="utf-8")
    assert np.allclose(load_classifier(path).probabilities(X), clf.probabilities(X), atol=1e-5)
    for part, bad in (
        ("weights", [[1.0, 0.0, 0.0]] * 3),  # three inputs after a layer of two
        ("bias", [0.0]),  # one bias for three outputs
    ):
        data = json.loads(clf.to_json())
        data["kind"][1][part] = bad
        path.write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(ModelError, match="retrain it with bench/train_classifier.py"):
            load_classifier(path)
