"""Evaluation: the matching rule, the arithmetic of the scores, gold formats, ``kg eval``.

Everything but the last test uses hand-made examples and the fake embedder;
``test_eval_on_scierc_sample_with_real_model`` runs the real model on five
SciERC abstracts and checks only that the figures are well-formed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import cli
from kg.errors import InputError
from kg.evaluate.counts import Counts
from kg.evaluate.gold import GoldPaper, load_gold
from kg.evaluate.matching import Predicted, align, match, normalise_term, same_concept
from kg.evaluate.predictors import KgPredictor, Prediction
from kg.evaluate.scoring import CONFIDENCE_LEVELS, score
from kg.model import Mention, Role


def gold(methods=None, problems=None, **kw) -> GoldPaper:
    return GoldPaper(
        id="p",
        text="x",
        source="t:1",
        methods=None if methods is None else tuple(methods),
        problems=None if problems is None else tuple(problems),
        **kw,
    )


# --- matching --------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b",
    [
        ("Support Vector Machines", "support vector machine"),
        ("Multi-View Stereo", "multi view stereo"),
        ("non-convex optimization", "nonconvex optimization"),
        ("CRF -LRB- conditional random field -RRB-", "CRF (conditional random field)"),
        ("`` bag of words '' model", '"bag-of-words" model'),
        ("policies", "policy"),
    ],
)
def test_equal_after_normalisation(a, b):
    assert normalise_term(a) == normalise_term(b) or same_concept(a, b)
    assert same_concept(a, b) and same_concept(b, a)


def test_jaccard_threshold_on_both_sides():
    # {optical, flow} vs {optical, flow, estimation}: 2/3 >= 0.6
    assert same_concept("optical flow estimation", "optical flow")
    # {a, b, c} vs {a, b, c, d, e}: 3/5 = 0.6 exactly, still a match
    assert same_concept("speech tagging lattice parsing rescoring", "speech tagging lattice")
    # {a, b} vs {a, b, c, d}: 2/4 = 0.5 < 0.6
    assert not same_concept("neural machine translation decoder", "neural machine")
    assert not same_concept("statistical parsing", "dependency parsing")  # 1/3


def test_stop_words_and_generic_heads_are_ignored():
    # the content words are {machine, translation} on both sides
    assert same_concept("a system for machine translation", "machine translation")
    assert same_concept("ranking approach", "ranking")
    assert same_concept("the tracking problem", "tracking task")
    # nothing but generic words: only exact equality counts
    assert not same_concept("model", "framework")
    assert same_concept("model", "models")
    # "system" is generic, "computer" is not
    assert not same_concept("computer vision", "vision")


def test_matching_is_one_to_one():
    assert match(["neural network", "neural networks", "Neural-Network"], ["neural network"]) == 1
    # one label that fits two gold concepts earns one credit
    assert (
        match(
            ["machine translation"],
            [
                "machine translation",
                "machine translation system",
                "statistical machine translation",
            ],
        )
        == 1
    )
    # maximum matching, not first come first served: "parsing" could take either gold
    assert match(["parsing", "semantic parsing"], ["semantic parsing", "parsing"]) == 2
    assert match([], ["x"]) == 0 and match(["x"], []) == 0


def test_gold_is_deduplicated_after_normalisation():
    pairs, extra, missed = align(["x"], ["Lexicons", "lexicon", "LEXICON"])
    assert len(pairs) + len(missed) == 1 and extra == [Predicted(("x",))]


def test_acronym_expansion_counts_once():
    sgd = Predicted(("SGD", "stochastic gradient descent"))
    assert match([sgd], ["stochastic gradient descent"]) == 1
    assert match([sgd], ["SGD"]) == 1
    # both forms are gold concepts, but it is one prediction: one credit
    assert match([sgd], ["SGD", "stochastic gradient descent"]) == 1


def test_ptb_is_undone():
    assert normalise_term("Hidden Markov Models -LRB- HMMs -RRB-") == "hidden markov models hmm"
    assert same_concept(
        "word sense disambiguation -LRB- WSD -RRB-", "word sense disambiguation (WSD)"
    )


# --- scoring ---------------------------------------------------------------


def test_scores_are_micro_averaged_by_hand():
    golds = [
        gold(methods=["A B", "C D"], problems=["E F"]),
        gold(methods=["G H"], problems=[]),
    ]
    preds = [
        Prediction(
            methods=(Predicted(("A B",)), Predicted(("X Y",))), problems=(Predicted(("E F",)),)
        ),
        Prediction(
            methods=(Predicted(("G H",)),), problems=(Predicted(("C D",)), Predicted(("Z",)))
        ),
    ]
    report = score(preds, golds)
    m, p, u = (report.figures[k] for k in ("method", "problem", "method+problem"))
    # methods: gold 3, predicted 3, matched 2 (A B, G H)
    assert (m.papers, m.gold, m.predicted, m.matched) == (2, 3, 3, 2)
    assert m.precision == pytest.approx(2 / 3) and m.recall == pytest.approx(2 / 3)
    # problems: gold 1, predicted 3, matched 1: P 1/3, R 1, F1 = 2PR/(P+R) = 0.5
    assert (p.gold, p.predicted, p.matched) == (1, 3, 1)
    assert p.f1 == pytest.approx(0.5)
    # untyped: paper 1 gold {AB, CD, EF} vs {AB, XY, EF}: 2; paper 2 gold {GH} vs {GH, CD, Z}: 1
    assert (u.gold, u.predicted, u.matched) == (4, 6, 3)
    assert (u.precision, u.recall) == pytest.approx((0.5, 0.75))
    assert u.f1 == pytest.approx(0.6)
    assert "field" not in report.figures and report.areas is None


def test_absent_gold_lists_are_not_scored_and_untyped_systems_get_one_figure():
    golds = [gold(methods=["A"]), gold(methods=["B"], problems=["C"], keywords=("C", "D"))]
    preds = [
        Prediction(phrases=(Predicted(("A",)),)),
        Prediction(phrases=(Predicted(("B",)), Predicted(("C",)))),
    ]
    report = score(preds, golds, typed=False, system="keybert")
    assert set(report.figures) == {"method+problem", "keyword"}
    u = report.figures["method+problem"]
    assert (u.papers, u.gold, u.predicted, u.matched) == (1, 2, 2, 2)
    assert report.figures["keyword"].recall == pytest.approx(0.5)
    assert report.notes and "keybert" in report.notes[0]


def test_area_accuracy_top1_and_top3():
    golds = [gold(area="optimization"), gold(area="optimization"), gold(area="learning theory")]
    preds = [
        Prediction(areas=("optimization", "learning theory")),
        Prediction(areas=("generative models", "reinforcement learning", "optimization")),
        Prediction(areas=("a", "b", "c", "learning theory")),
    ]
    areas = score(preds, golds).areas
    assert (areas.papers, areas.top1, areas.top3) == (3, 1, 2)
    assert areas.top1_accuracy == pytest.approx(1 / 3)


def test_kg_mentions_become_predictions_with_iclr_areas():
    from kg.taxonomy import load_taxonomy

    class Stub:
        taxonomy = load_taxonomy()

    predictor = KgPredictor(Stub())
    assert "optimization" in predictor.areas.values()
    key = next(f.key for f in Stub.taxonomy.fields if f.key == "optimization")
    pred = predictor.prediction(
        [
            Mention("SGD", Role.USES, 0.9, "s", expansion="stochastic gradient descent"),
            Mention("heavy-tailed noise", Role.ADDRESSES, 0.8, "s"),
            Mention(key, Role.IN_FIELD, 0.7, "s"),
        ]
    )
    assert pred.methods == (Predicted(("SGD", "stochastic gradient descent")),)
    assert [p.text for p in pred.problems] == ["heavy-tailed noise"]
    assert pred.areas == ("optimization",)
    assert pred.fields[0].text == Stub.taxonomy.by_key(key).label


# --- gold files ------------------------------------------------------------


def write_jsonl(path: Path, *records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_load_kg_format(tmp_path):
    path = write_jsonl(
        tmp_path / "g.jsonl",
        {"id": "a", "title": "T", "abstract": "Text one.", "methods": ["SGD"], "problems": []},
        {"text": "Text two.", "fields": ["optimization"]},
    )
    a, b = load_gold(path)
    assert (a.id, a.title, a.methods, a.problems, a.fields) == ("a", "T", ("SGD",), (), None)
    assert (b.text, b.methods, b.fields) == ("Text two.", None, ("optimization",))
    assert a.source == f"{path}:1"


def test_load_scierc_format(tmp_path):
    path = write_jsonl(
        tmp_path / "scierc.jsonl",
        {
            "doc_key": "X_1",
            "text": "We use HMMs -LRB- hidden Markov models -RRB- for tagging .",
            "entities": [
                {"text": "HMMs", "type": "Method"},
                {"text": "tagging", "type": "Task"},
                {"text": "it", "type": "Generic"},
                {"text": "accuracy", "type": "Metric"},
            ],
        },
    )
    [g] = load_gold(path)
    assert (g.id, g.methods, g.problems, g.area, g.keywords) == (
        "X_1", ("HMMs",), ("tagging",), None, None,
    )  # fmt: skip


def test_load_iclr_format(tmp_path):
    path = write_jsonl(
        tmp_path / "iclr.jsonl",
        {
            "id": "iclr-1",
            "title": "Clipping helps",
            "abstract": "We study clipping.",
            "keywords": ["gradient clipping", "heavy tails"],
            "primary_area": "optimization",
        },
    )
    [g] = load_gold(path)
    assert (g.area, g.keywords, g.methods) == (
        "optimization",
        ("gradient clipping", "heavy tails"),
        None,
    )


def test_load_limit_and_errors(tmp_path):
    good = {"abstract": "x", "methods": ["a"]}
    path = write_jsonl(tmp_path / "g.jsonl", good, good, good)
    assert len(load_gold(path, limit=2)) == 2
    (tmp_path / "bad.jsonl").write_text(json.dumps(good) + "\n{not json\n")
    with pytest.raises(InputError, match=r"bad\.jsonl:2: not valid JSON"):
        load_gold(tmp_path / "bad.jsonl")
    with pytest.raises(InputError, match="no scorable records"):
        load_gold(write_jsonl(tmp_path / "plain.jsonl", {"abstract": "x"}))
    with pytest.raises(InputError, match=r"t\.jsonl:1: 'methods' must be a list of strings"):
        load_gold(write_jsonl(tmp_path / "t.jsonl", {"abstract": "x", "methods": "a"}))
    with pytest.raises(InputError, match="no abstract"):
        load_gold(write_jsonl(tmp_path / "n.jsonl", {"id": "x", "methods": ["a"]}))
    with pytest.raises(InputError, match="no such file"):
        load_gold(tmp_path / "missing.jsonl")


# --- the command -----------------------------------------------------------


def run(*argv: str) -> tuple[int, str, str]:
    """Run ``kg ARGV`` through click's test runner: exit status, stdout, stderr."""
    result = CliRunner().invoke(cli, list(argv))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception  # a bug, not a user error: show the traceback
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def gold_file(tmp_path) -> Path:
    return write_jsonl(
        tmp_path / "gold.jsonl",
        {
            "abstract": "Message passing networks suffer from oversmoothing in molecule property "
            "prediction. We introduce DropEdge-X, a regularization method that mitigates it.",
            "methods": ["DropEdge-X", "message passing networks"],
            "problems": ["oversmoothing", "molecule property prediction"],
        },
        {
            "abstract": "We study reinforcement learning with sparse rewards. We propose Curio, an "
            "exploration bonus based on prediction error, and evaluate it on Atari games.",
            "methods": ["Curio", "exploration bonus"],
            "problems": ["reinforcement learning with sparse rewards"],
            "primary_area": "reinforcement learning",
            "keywords": ["exploration", "sparse rewards"],
        },
    )


def test_cli_eval_prints_the_table(fake_model, gold_file):
    code, out, err = run("eval", str(gold_file))
    assert code == 0, err
    assert "method+problem" in out and "area accuracy" in out and "keyword recall" in out
    assert "extracting" in err


def test_cli_eval_json_and_baseline(fake_model, gold_file):
    code, out, err = run("eval", str(gold_file), "--json", "--limit", "1")
    assert code == 0, err
    data = json.loads(out)
    assert data["papers"] == 1 and set(data["figures"]) == {
        "method+problem", "method", "problem", "candidate recall",
        *(f"method+problem >={level}" for level in CONFIDENCE_LEVELS),
    }  # fmt: skip
    assert all(0 <= v["f1"] <= 1 for v in data["figures"].values())
    code, out, err = run("eval", str(gold_file), "--baseline", "keybert", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data["figures"]) == {"method+problem", "keyword"} and data["areas"] is None
    assert "does not type" in data["notes"][0]


def test_cli_eval_bad_file_is_one_line(fake_model, tmp_path):
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"abstract": "x", "methods": []}\n{"abstract": \n')
    code, out, err = run("eval", str(bad))
    assert code == 1 and out == ""
    assert err.startswith("kg: error: ") and f"{bad}:2" in err and "Traceback" not in err
    code, _, err = run("eval", str(tmp_path / "missing.jsonl"))
    assert code == 1 and "missing.jsonl" in err


@pytest.mark.model
def test_eval_on_scierc_sample_with_real_model(shared_data):
    code, out, err = run("eval", str(shared_data / "scierc_dev.jsonl"), "--limit", "5",
                         "--json")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["papers"] == 5
    for name in ("method+problem", "method", "problem"):
        figure = data["figures"][name]
        assert 0 <= figure["matched"] <= min(figure["gold"], figure["predicted"])
        assert all(0 <= figure[k] <= 1 for k in ("precision", "recall", "f1"))


def test_eval_warns_when_the_gold_file_trained_the_area_model(tmp_path):
    import hashlib

    from kg.evaluate import _training_data_note

    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"abstract": "x", "primary_area": "optimization"}\n')
    digest = hashlib.sha256(gold.read_bytes()).hexdigest()

    class Model:
        info = {"trained_on_sha256": digest, "cv_top1": 0.5, "cv_top3": 0.8}

    note = _training_data_note(gold, Model())
    assert note is not None and "in-sample" in note and "0.5" in note
    Model.info = {**Model.info, "trained_on_sha256": "0" * 64}
    assert _training_data_note(gold, Model()) is None
    assert _training_data_note(gold, None) is None


# --- keyphrase benchmarks ---------------------------------------------------


def test_keyphrase_protocol_lowercases_and_stems_every_word():
    from kg.evaluate.keyphrases import stemmed

    assert stemmed("Video Servers") == stemmed("video server")
    assert stemmed("response-times") == stemmed("response times")
    assert stemmed("selection algorithm") != stemmed("efficient retrieval selection algorithm")


def test_f1_at_k_counts_distinct_predictions_and_all_gold():
    from kg.evaluate.keyphrases import at_k

    ranked = ["video servers", "video server", "response time", "storage", "higher education"]
    gold = ["video server", "higher education", "not in the text at all"]
    # the stemmed duplicate is one prediction; "higher education" is 4th, out of the top 2
    assert at_k(ranked, gold, 2) == Counts(1, 3, 2, 1)
    assert at_k(ranked, gold, 10) == Counts(1, 3, 4, 2)


def test_candidate_recall_counts_only_gold_found_in_the_text():
    from kg.evaluate.keyphrases import candidate_recall

    text = "Video servers answer requests. Response times grow with load."
    got = candidate_recall(["video servers", "load"], ["video server", "response time", "x"], text)
    assert got == Counts(1, 2, 2, 1)


def test_keyphrase_gold_is_scored_at_5_and_10_with_candidate_recall(tmp_path):
    path = write_jsonl(
        tmp_path / "inspec.jsonl",
        {"id": "i1", "title": "Video servers", "abstract": "Response times.", "keyphrases":
         ["video servers", "response times"]},
    )  # fmt: skip
    [g] = load_gold(path)
    assert g.keyphrases == ("video servers", "response times") and g.scorable
    pred = Prediction(
        ranked=(Predicted(("response time",)), Predicted(("video",))),
        candidates=("video servers", "response time", "video"),
    )
    report = score([pred], [g])
    assert report.figures["keyphrase@5"] == Counts(1, 2, 2, 1)
    assert report.figures["candidate recall"] == Counts(1, 2, 3, 2)
    assert "method+problem" not in report.figures


def test_every_link_is_scored_and_precision_by_confidence():
    g = gold(["SGD"], ["heavy-tailed noise"])
    sure, unsure = Predicted(("SGD",)), Predicted(("token",))
    pred = Prediction(methods=(sure, unsure), ranked=(sure, unsure), confidence=(0.8, 0.4))
    report = score([pred], [g])
    assert report.figures["method+problem"] == Counts(1, 2, 2, 1)
    assert report.figures["method+problem >=0.5"] == Counts(1, 2, 1, 1)
    assert report.figures["method+problem >=0.3"] == Counts(1, 2, 2, 1)


def test_weak_mentions_the_graph_links_are_predictions_of_their_kind():
    from kg.lexicon import variant_key
    from kg.taxonomy import load_taxonomy

    class Stub:
        taxonomy = load_taxonomy()

    weak = Mention("score matching", Role.USES, 0.6, "s", selected=False)
    lone = Mention("token", Role.USES, 0.6, "s", selected=False)
    pred = KgPredictor(Stub()).prediction(
        [Mention("SGD", Role.USES, 0.9, "s"), weak, lone],
        linked={"score-matching"},
        key_of={variant_key("score matching"): "score-matching", variant_key("token"): "token"},
    )
    assert [p.text for p in pred.methods] == ["SGD", "score matching"]
    assert pred.confidence == (0.9, 0.6)
