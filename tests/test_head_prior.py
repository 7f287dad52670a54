"""The head-word kind prior: counts from annotated spans, features, the shipped table."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from kg.errors import ModelError
from kg.extract.head_prior import DEFAULT_TABLE, HeadPrior, load_head_prior, span_head

ROOT = Path(__file__).resolve().parents[1]

SPANS = [
    ("convolutional neural networks", "method"),
    ("graph network", "method"),
    ("recurrent networks", "method"),
    ("speech recognition", "problem"),
    ("object recognition", "problem"),
    ("adversarial robustness", "other"),
]


def test_a_span_head_is_its_singular_last_word_with_ptb_tokens_and_punctuation_undone():
    assert span_head("heavy-tailed gradient noises") == "noise"
    assert span_head("stochastic gradient descent -LRB- SGD -RRB-") == "sgd"
    assert span_head("Ogden 's") == "ogden"
    assert span_head("`` bag of words ''") == "word"
    assert span_head("-LRB- -RRB-") == ""


def test_a_head_seen_as_one_kind_leans_to_it_and_an_unseen_head_gets_the_class_shares():
    prior = HeadPrior.from_spans(SPANS)
    assert prior.counts["network"] == (3, 0, 0)
    m, p, o, seen = prior.features("network")
    assert m > p and m > o and seen == pytest.approx(math.log(4))
    m, p, o, seen = prior.features("recognition")
    assert p > m and p > o
    shares = prior.shares
    m, p, o, seen = prior.features("never-annotated")
    assert seen == 0
    assert m == pytest.approx(math.log(shares[0] / (1 - shares[0])))
    assert p == pytest.approx(math.log(shares[1] / (1 - shares[1])))


def test_leaving_an_abstract_out_removes_exactly_its_counts():
    prior = HeadPrior.from_spans(SPANS)
    less = prior.without([("graph network", "method"), ("adversarial robustness", "other")])
    assert less.counts["network"] == (2, 0, 0)
    assert "robustness" not in less.counts
    assert less.counts["recognition"] == prior.counts["recognition"]
    assert prior.without([]) is prior


def test_the_table_round_trips_and_a_broken_one_is_a_model_error(tmp_path):
    from kg.extract.head_prior import write_table

    prior = HeadPrior.from_spans(SPANS)
    path = tmp_path / "heads.tsv"
    write_table(prior, path, "test spans")
    assert load_head_prior(path) == prior
    bad = tmp_path / "bad.tsv"
    bad.write_text("network\tmany\t0\t0\n", encoding="utf-8")
    with pytest.raises(ModelError, match="bench/head_kinds.py"):
        load_head_prior(bad)
    with pytest.raises(ModelError, match="cannot read"):
        load_head_prior(tmp_path / "missing.tsv")


def test_the_shipped_table_is_what_the_bench_script_writes_from_scierc_train(shared_data, tmp_path):
    out = tmp_path / "head_kinds.tsv"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "head_kinds.py"),
            "--data",
            str(shared_data),
            "--out",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    assert out.read_text(encoding="utf-8") == DEFAULT_TABLE.read_text(encoding="utf-8")


def test_the_classifier_features_carry_the_prior_of_the_phrase_head():
    import numpy as np

    from kg.extract.candidates import Candidate
    from kg.extract.classify import FEATURE_NAMES, features
    from kg.extract.embed import EMBEDDING_DIM
    from kg.extract.head_prior import PRIOR_FEATURES

    prior = HeadPrior.from_spans(SPANS)
    cands = [Candidate("graph networks", 0), Candidate("ASR", 0, expansion="speech recognition")]
    zeros = np.zeros((2, EMBEDDING_DIM))
    X = features(cands, [0.5, 0.4], zeros, zeros, "graph networks. ASR", 1, prior)
    cols = [FEATURE_NAMES.index(f) for f in PRIOR_FEATURES]
    assert np.allclose(X[0, cols], prior.features("network"))
    assert np.allclose(X[1, cols], prior.features("recognition"))  # an acronym: its expansion


def test_the_cross_validation_never_shows_an_abstract_its_own_annotations():
    """bench/train_classifier.py's prior columns: held-out rows read the training
    abstracts' counts only; a training row reads them less its own spans."""
    import importlib.util

    import numpy as np

    from kg.extract.candidates import Candidate
    from kg.extract.classify import FEATURE_NAMES
    from kg.extract.select import CandidateTable

    spec = importlib.util.spec_from_file_location(
        "train_classifier", ROOT / "bench" / "train_classifier.py"
    )
    tc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tc)
    spans = {
        "a": [("graph network", "method")],
        "b": [("recurrent network", "method"), ("speech recognition", "problem")],
        "c": [("object recognition", "problem")],
    }

    def row(dataset, doc):
        cands = [Candidate("deep network", 0), Candidate("image recognition", 0)]
        table = CandidateTable(cands, [0.5, 0.5], np.zeros((2, len(FEATURE_NAMES))))
        return {"dataset": dataset, "id": doc, "table": table}

    rows = [row("scierc", "a"), row("scierc", "b"), row("scierc", "c"), row("inspec", "x")]
    out = tc.with_prior(rows, spans, trained={"a", "b"})
    cols = tc._PRIOR_COLUMNS
    trained = HeadPrior.from_spans(spans["a"] + spans["b"])
    assert np.allclose(
        out[2]["table"].features[:, cols],
        [trained.features("network"), trained.features("recognition")],
    )
    assert np.allclose(out[3]["table"].features[:, cols], out[2]["table"].features[:, cols])
    own_left_out = HeadPrior.from_spans(spans["b"])  # row "a" never sees "graph network"
    assert np.allclose(out[0]["table"].features[0, cols], own_left_out.features("network"))
    assert out[0]["table"].features[0, cols][3] == pytest.approx(
        math.log(2)
    )  # seen once, not twice
