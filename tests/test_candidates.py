"""Candidate phrases and their cues, on text written for these tests (not seed text)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.extract.acronyms import acronyms
from kg.extract.candidates import LOOSE_MAX_WORDS, candidates
from kg.extract.phrases import is_generic, names_quantity
from kg.lexicon import singular
from kg.model import Kind


def texts(sentences):
    """The strict candidates: phrases the chunking rules vouch for."""
    return {c.text: c for c in candidates(sentences) if not c.loose}


def loose(sentences):
    return {c.text for c in candidates(sentences) if c.loose}


def test_phrases_never_cross_verbs_adverbs_or_punctuation():
    found = texts(["Adam provably achieves fast convergence, unlike plain momentum."])
    assert "Adam" in found
    for phrase in found:
        assert "provably" not in phrase and "achieves" not in phrase
        assert "," not in phrase
    assert not any("unlike" in p for p in found)


def test_generic_phrases_are_not_candidates():
    found = texts(["Extensive experiments and theoretical results support our novel framework."])
    assert not any(is_generic(p) for p in found)
    for generic in ("extensive experiments", "theoretical results", "novel framework"):
        assert generic not in {p.lower() for p in found}


def test_acronym_definition_both_orders_and_inner_letters():
    assert acronyms("We use Proximal Policy Optimization (PPO) here.") == {
        "PPO": "Proximal Policy Optimization"
    }
    assert acronyms("a GNN (graph neural network) baseline") == {"GNN": "graph neural network"}
    assert acronyms("We call it Sparse MIxture Learning (SMIL).") == {
        "SMIL": "Sparse MIxture Learning"
    }
    assert acronyms("in this setting (see below) we") == {}


def test_proposed_method_is_marked_and_typed():
    found = texts(["We propose Graph-Mixer, a graph transformer for molecule property prediction."])
    assert found["Graph-Mixer"].proposed
    assert found["Graph-Mixer"].cue is Kind.METHOD
    assert found["molecule property prediction"].cue is Kind.PROBLEM
    assert not found["molecule property prediction"].proposed


def test_used_method_is_not_proposed():
    found = texts(["Prior work relies on BERT for sentiment classification."])
    assert found["BERT"].cue is Kind.METHOD and not found["BERT"].proposed


def test_acronym_candidate_carries_its_expansion():
    found = texts(["We adopt Low-Rank Adaptation (LoRA).", "LoRA reduces memory."])
    assert found["LoRA"].expansion == "Low-Rank Adaptation"


def test_singular():
    assert [singular(w) for w in ["networks", "GNNs", "classes", "bias", "physics"]] == [
        "network",
        "GNN",
        "class",
        "bias",
        "physics",
    ]


@given(st.text(max_size=300))
def test_any_text_gives_clean_candidates(text):
    for c in candidates([text]):
        assert c.text == c.text.strip() and c.text
        assert not is_generic(c.text)
        assert len(c.text.split()) <= (LOOSE_MAX_WORDS if c.loose else 4)


def test_loose_candidates_add_the_phrases_strict_chunking_cuts():
    sentences = ["We tune sliding mode control by simulated annealing, which converges."]
    assert "simulated annealing" in loose(sentences)
    assert "sliding mode control" in loose(sentences)
    assert "simulated annealing" not in texts(sentences)  # a participle ends a strict phrase
    # never across punctuation, function words or known verbs
    assert not any("," in p or " by " in f" {p} " or "converges" in p for p in loose(sentences))
    assert not loose(sentences) & set(texts(sentences))  # each phrase once


def test_a_gerund_after_a_preposition_is_a_verb_not_the_start_of_a_phrase():
    sentences = [
        "We end by comparing boosted trees and bagging, without fitting deep kernels.",
        "For denoising images we use clipping gradients.",
    ]
    found = loose(sentences) | set(texts(sentences))
    assert not any(p.startswith(("comparing", "fitting")) for p in found)
    assert "boosted trees" in found and "deep kernels" in found
    # gerunds that name things still start phrases after a preposition
    assert "denoising images" in found


def test_a_gerund_after_an_adverb_is_a_participle_not_the_start_of_a_phrase():
    sentences = [
        "We prove a nearly matching sample complexity and use early stopping with flow matching."
    ]
    found = loose(sentences) | set(texts(sentences))
    assert not any(p.startswith("matching") for p in found)
    assert {"early stopping", "flow matching"} <= found


def test_a_gerund_that_opens_a_title_or_its_part_after_a_colon_is_a_verb():
    sentences = [
        "Taming Reservoirs: Rewiring Sparse Echo Networks for Tidal Forecasting",
        "Sparse echo networks forecast tides.",
    ]
    found = loose(sentences) | set(texts(sentences))
    assert not any(p.lower().startswith(("rewiring ", "taming ")) for p in found)
    assert "Sparse Echo Networks" in found or "sparse echo networks" in found


def test_an_opening_gerund_the_text_also_writes_inside_a_sentence_starts_a_term():
    sentences = [
        "Spiking reservoir networks save energy on chips.",
        "We train spiking reservoir networks with surrogate gradients.",
    ]
    first_seen = {c.text.lower(): c.sentence for c in candidates(sentences)}
    assert first_seen["spiking reservoir networks"] == 0  # a term from the first sentence on
    # without the second sentence it opens the first as a verb would
    assert not any(p.lower().startswith("spiking ") for p in loose(sentences[:1]))


def test_a_gerund_a_preposition_makes_a_verb_inside_a_sentence_makes_no_term():
    sentences = [
        "Draining Reservoirs Quickly with Sparse Pumps",
        "We give a method for draining reservoirs with sparse pumps.",
    ]
    assert not any(c.text.lower().startswith("draining ") for c in candidates(sentences))


def test_a_gerund_that_names_a_thing_still_opens_a_phrase():
    sentences = ["Tracking sliding mode controllers drift over time.", "We bound them."]
    assert "Tracking sliding mode controllers" in loose(sentences)  # "tracking" names a task


def test_a_gerund_after_a_colon_inside_an_abstract_is_no_title_verb():
    sentences = [
        "Tidal Forecasting with Echo Networks",
        "We face two problems: shrinking reservoirs and noisy gauges.",
    ]
    assert "shrinking reservoirs" in loose(sentences)


def test_acronym_may_skip_one_inner_word():
    assert acronyms("We design Sparse Attention with Routing Tokens (SRT).") == {
        "SRT": "Sparse Attention with Routing Tokens"
    }
    assert acronyms("we evaluate on held-out data (XY) today") == {}


def test_naming_verbs_mark_the_name_as_proposed():
    found = texts(["We present a toolkit called DataForge that cleans tabular corpora."])
    assert found["DataForge"].proposed and found["DataForge"].cue is Kind.METHOD
    assert not found.get("tabular corpora") or not found["tabular corpora"].proposed


def test_only_the_name_and_its_apposition_are_proposed():
    found = texts(
        ["We propose Curio, an intrinsic reward based on the error of a learned dynamics model."]
    )
    assert found["Curio"].proposed
    assert not found["learned dynamics model"].proposed


def test_a_name_written_first_and_proposed_later_is_proposed_there():
    found = texts(
        [
            "Quillon: Sparse Retrieval for Long Contexts",
            "Retrieval over long contexts is slow.",
            "We propose Quillon, a retriever that skips most of the context.",
        ]
    )
    assert found["Quillon"].proposed and found["Quillon"].cue is Kind.METHOD
    assert found["Quillon"].sentence == 2  # its evidence is the proposal
    found = texts(["eLoRA: Elastic Adapters", "We develop eLoRA, a family of adapters."])
    assert found["eLoRA"].proposed
    found = texts(["Zappa: Safe Evaluation", "We then introduce an algorithm Zappa for it."])
    assert found["Zappa"].proposed


@pytest.mark.parametrize(
    "sentence, name",
    [
        ("Our sampler (GLIMR) mixes in linear time.", "GLIMR"),
        ("Our estimator, KernelMix, is unbiased.", "KernelMix"),
        ("We also present a planning network (ArborQ) that searches ahead.", "ArborQ"),
    ],
)
def test_a_name_the_paper_gives_its_own_method_is_proposed(sentence, name):
    found = texts(["Sorting networks are hard to learn.", sentence])
    assert found[name].proposed and found[name].cue is Kind.METHOD


@pytest.mark.parametrize(
    "earlier, sentence, name",
    [
        ("Encoders such as BERT are common.", "Devlin et al. introduced BERT, an encoder.", "BERT"),
        ("Encoders such as BERT are common.", "Google developed BERT for search.", "BERT"),
        (
            "Kestrel-2 is a large model.",
            "Our teacher model (Kestrel-2) labels the data.",
            "Kestrel-2",
        ),
        ("Transformers are common.", "Attention represents Transformers well.", "Transformers"),
    ],
)
def test_a_name_others_made_or_the_paper_only_uses_is_not_proposed(earlier, sentence, name):
    found = texts([earlier, sentence])
    assert name not in found or not found[name].proposed


def test_what_a_proposal_only_mentions_is_not_proposed():
    found = texts(["Prior samplers use Kite.", "We build a sampler dubbed Kite-2, unlike Kite."])
    assert found["Kite-2"].proposed and not found["Kite"].proposed
    found = texts(["Many models adapt BERT.", "We introduce BERT-Lite, a BERT-sized encoder."])
    assert found["BERT-Lite"].proposed and not found["BERT"].proposed
    found = texts(
        [
            "Block draft decoding (BDD) speeds up generation.",
            "We propose Twin-BDD, which pairs two BDD drafters.",
        ]
    )
    assert found["Twin-BDD"].proposed and not found["BDD"].proposed


def test_verbs_gerunds_citations_and_trailing_adjectives_end_phrases():
    found = texts(
        [
            "Scaling large transformers dominates standard pipelines, see LWZ25b.",
            "Our approach restores fragile layers in deep neural networks.",
            "We obtain gradient estimates continuous in time.",
        ]
    )
    assert not any(p.startswith("Scaling") for p in found)
    assert "LWZ25b" not in found
    assert not any("dominates" in p or "restores" in p for p in found)
    assert "deep neural networks" in found
    assert "gradient estimates" in found
    assert not any(p.endswith(" continuous") for p in found)


def test_established_terms_keep_their_weak_modifier():
    sentence = ["Powerful ocean models answer questions about deep sea ecology."]
    assert "ocean models" in texts(sentence)
    free = {c.text: c.free_modifier for c in candidates(sentence)}
    assert free.get("Powerful ocean models", True)  # offered only as a free modifier, if at all
    kept = {c.text: c for c in candidates(sentence, terms=frozenset({"powerful ocean models"}))}
    assert not kept["Powerful ocean models"].free_modifier


def test_a_weak_modifier_leads_only_a_fixed_term_of_ml_writing():
    found = {
        c.text: c for c in candidates(["Standard optimisers fail where optimal transport helps."])
    }
    assert all(c.free_modifier for p, c in found.items() if p.startswith("Standard"))
    assert not found["optimal transport"].free_modifier  # "optimal" is bound here


def test_a_defined_expansion_keeps_its_weak_modifier():
    found = texts(["We fit a Large Margin Classifier (LMC) to sensor readings."])
    assert "LMC" in found and found["LMC"].expansion == "Large Margin Classifier"
    assert "Large Margin Classifier" in found


def test_sentence_initial_capital_is_dropped_only_for_ordinary_words():
    found = texts(
        [
            "Protein structures are hard to predict.",
            "Markov chains mix slowly when protein energy landscapes are rugged.",
        ]
    )
    assert "protein structures" in found  # "protein" is also written in lower case
    assert "Markov chains" in found  # a name: never written in lower case


def test_infinitives_and_trailing_time_adverbs_end_phrases():
    found = texts(
        [
            "We aim to incentivize honest farmers and to examine crop rotation schedules.",
            "Crews follow the irrigation plan later.",
            "Pairwise comparisons of soil samples follow.",
        ]
    )
    assert "honest farmers" in found and "crop rotation schedules" in found
    assert not any(p.startswith(("incentivize", "examine")) for p in found)
    assert "irrigation plan" in found and not any(p.endswith("later") for p in found)
    assert any(p.lower().startswith("pairwise") for p in found)  # -wise is not a verb


def test_quantities_and_assumptions_are_neither_methods_nor_problems():
    assert names_quantity("tight sample-size bound")
    assert names_quantity("mild smoothness assumptions")
    assert names_quantity("Weibull marginals")
    assert not names_quantity("Kalman filter")
    assert not names_quantity("RB-Bound")  # a name stays whatever its last word
    # A property a result has, not a method or a problem: "we prove linear convergence".
    assert names_quantity("linear convergence") and names_quantity("local Lipschitz continuity")
    assert names_quantity("strong convexity") and not names_quantity("convex optimization")


@pytest.mark.parametrize(
    "phrase",
    [
        "sample complexity",  # a measure of a method
        "top-1 accuracy",
        "communication cost",
        "contrastive training objective",  # what a method optimises
        "focal loss",
        "Lyapunov function",
        "offline setting",  # where it is set
        "heat equation",
        "Pareto optimal solutions",  # what a method finds
        "Stackelberg equilibrium",
        "Bayesian regret",  # what a method suffers or bounds
        "generalization error",
    ],
)
def test_measures_objectives_and_settings_are_neither_methods_nor_problems(phrase):
    assert names_quantity(phrase)


def test_an_expansion_that_runs_on_past_its_acronym_is_one_phrase():
    sentence = "We propose Adaptive Trust Region (ATR) policy updates, which stay stable."
    found = {c.text: c for c in candidates([sentence])}
    assert found["Adaptive Trust Region policy updates"].proposed
    # A verb after the parenthesis ends the phrase: the expansion is whole.
    stops = {c.text for c in candidates(["Masked Autoencoders (MAE) learn the visual features."])}
    assert "Masked Autoencoders" in stops and not any(
        t.startswith("Masked Autoencoders l") for t in stops
    )


def test_a_name_only_written_before_more_of_it_is_a_modifier():
    sentences = ["We study Graded Convex Programs.", "Graded Convex Programs are hard to solve."]
    found = {c.text: c for c in candidates(sentences)}
    assert found["Graded Convex"].modifier and not found["Graded Convex Programs"].modifier
    alone = {c.text: c for c in candidates(["We use the LoRA regime.", "LoRA helps."])}
    assert not alone["LoRA"].modifier  # written on its own too
    # A title's capitals make no name of a phrase the abstract writes in lower case.
    titled = [
        "On the Fast-Mixing Chains of Gibbs Samplers",
        "We bound fast-mixing chains and fast-mixing samplers.",
    ]
    assert {c.text: c for c in candidates(titled)}["Fast-Mixing"].modifier


def test_words_the_taxonomy_writes_in_lower_case_lose_a_sentence_initial_capital():
    sentence = ["Neural fields render glacier surfaces."]
    assert "Neural fields" in texts(sentence)
    lowered = {c.text for c in candidates(sentence, ordinary=frozenset({"neural"}))}
    assert "neural fields" in lowered and "Neural fields" not in lowered
    named = {
        c.text
        for c in candidates(["Kalman filters track glaciers."], ordinary=frozenset({"neural"}))
    }
    assert "Kalman filters" in named


def test_an_s_form_before_a_determiner_is_a_verb():
    found = texts(["The citation graph reflects the growth of preprint servers."])
    assert "citation graph" in found
    assert not any("reflects" in p for p in found)
    assert "preprint servers" in found
    kept = texts(["Class labels guide the decoder."])  # a plural before a verb stays a noun
    assert {"Class labels", "class labels"} & set(kept)


def test_a_phrase_that_only_stands_before_more_of_its_nouns_is_a_modifier():
    sentences = [
        "LoRAs are decoded points on a structured adapter manifold.",
        "Object recognition tasks remain hard, and the LoRA regime is studied.",
        "We note that the adapter is small.",
    ]
    modifier = {c.text: c.modifier for c in candidates(sentences)}
    assert modifier["structured adapter"]  # "manifold" follows it, always
    assert not modifier["structured adapter manifold"]
    assert not modifier["adapter"]  # the third sentence writes it alone
    assert not modifier["Object recognition"]  # only a generic noun follows
    assert not modifier["LoRA"]  # a name stays: "the LoRA regime" is about LoRA


def test_a_capital_that_only_opens_a_sentence_does_not_make_a_modifier_a_name():
    sentences = [
        "Crystalline molecular structures from spectra are hard to recover.",
        "We study the Statistical Query complexity lower bound of parity learning.",
    ]
    modifier = {c.text: c.modifier for c in candidates(sentences)}
    assert modifier["Crystalline molecular"]  # "structures" always follows it
    assert not modifier["Crystalline molecular structures"]
    assert not modifier["Statistical Query complexity"]  # a capitalised term stands


def test_a_name_only_ever_written_before_a_quantity_is_cut_short():
    sentences = [
        "We introduce the perfect Littlestone dimension of a class.",
        "A finite perfect Littlestone dimension gives a constant rate.",
        "PatchTST time series forecasting uses the Hoeffding bound and Hoeffding.",
    ]
    modifier = {c.text: c.modifier for c in candidates(sentences)}
    assert modifier["perfect Littlestone"]  # always the start of "... dimension"
    assert not modifier["PatchTST"]  # what follows it names no quantity
    assert not modifier["Hoeffding"]  # the last sentence writes it alone


def test_a_capitalised_word_written_inside_a_sentence_elsewhere_is_a_name():
    sentences = [
        "Adam optimizer updates are cheap.",
        "We tune the Adam optimizer on small data.",
    ]
    modifier = {c.text: c.modifier for c in candidates(sentences)}
    assert not modifier.get("Adam", False)  # "the Adam optimizer": a name, mid-sentence


def test_a_phrase_only_written_as_what_the_paper_beats_is_a_baseline():
    found = {
        c.text: c
        for c in candidates(
            [
                "We decode with nucleus sampling.",
                "Our decoder is faster than beam search and outperforms greedy decoding.",
            ]
        )
    }
    assert found["beam search"].compared and found["greedy decoding"].compared
    assert not found["nucleus sampling"].compared


def test_an_example_of_what_the_paper_beats_is_a_baseline():
    found = {
        c.text: c
        for c in candidates(
            [
                "Our planner dominates hand-written routing rules (e.g., Dijkstra relaxation).",
                "Our planner improves over greedy routing.",
                "We irrigate with drip emitters.",
            ]
        )
    }
    assert found["Dijkstra relaxation"].compared  # an example of the beaten rules
    assert found["greedy routing"].compared
    assert not found["drip emitters"].compared
    # A list of examples is no comparison by itself: they may be where the claim holds.
    listed = {c.text: c for c in candidates(["It holds on clay, including sandy silt and peat."])}
    assert not listed["sandy silt"].compared


def test_a_typed_acronym_keeps_what_the_text_says_of_it():
    from kg.extract.refine import merge_acronyms

    found = candidates(
        [
            "Kernel Ridge Regression (KRR) is slow.",
            "Our sketch is faster than KRR on every grid.",
            "We never use KRR alone.",
        ]
    )
    compared = [replace(c, compared=True) if c.text == "KRR" else c for c in found]
    (krr,) = [c for c in merge_acronyms(compared) if c.text == "KRR"]
    assert krr.compared and krr.expansion == "Kernel Ridge Regression"


def test_an_acronym_is_studied_when_its_expansion_is():
    from kg.extract.refine import merge_acronyms

    found = candidates(
        [
            "We investigate Glacier Surge Forecasting (GSF) from radar swaths.",
            "Some write Glacier Surge Forecasting (GS-F) instead.",
        ]
    )
    assert any(c.studied and c.text == "Glacier Surge Forecasting" for c in found)
    merged = {c.text: c for c in merge_acronyms(found) if c.expansion}
    assert merged["GSF"].studied and merged["GS-F"].studied  # both stand for the subject


def test_an_adverb_that_makes_a_term_stays_in_the_phrase():
    found = texts(
        [
            "We study partially observable grid worlds with fully connected layers.",
            "Crews reroute barges by stochastically perturbing the schedule.",
            "Their sensing reliably detects rust on weakly supervised labels.",
        ]
    )
    assert "partially observable grid worlds" in found or "partially observable grid" in found
    assert "fully connected layers" in found
    assert "weakly supervised labels" in found
    assert not any(p.startswith(("observable", "connected", "stochastically")) for p in found)
    assert not any(p.endswith(("perturbing", "reliably")) for p in found)


def test_no_phrase_starts_inside_a_term_after_its_adverb():
    everything = {c.text for c in candidates(["We model partially observable grid worlds."])}
    assert "partially observable grid worlds" in everything
    assert not any(p.startswith("observable") for p in everything)  # strict and loose alike


def test_an_adverb_before_a_verb_is_no_part_of_a_term():
    found = texts(["The rover uniformly samples soil points."])
    assert not any("uniformly" in p for p in found)


def test_an_adverb_after_a_noun_starts_a_new_phrase():
    found = texts(["It learns a soil map conditionally independent spectral bands."])
    assert "soil map" in found and "conditionally independent spectral bands" in found
    assert not any("map conditionally" in p for p in found)


def test_a_base_form_after_to_is_a_verb_before_its_object():
    found = texts(["Farmers need to train sparse crop models and to guide drone swarms."])
    assert "sparse crop models" in found and "drone swarms" in found
    assert not any(p.startswith(("train", "guide")) for p in found)
    # Only the few that rarely start a noun phrase there: "applied to change point detection".
    nouns = texts(["It is applied to change point detection and to train schedules."])
    assert "change point detection" in nouns and "train schedules" not in nouns


def test_verbs_that_are_never_nouns_end_a_phrase():
    found = texts(["Crop rotation planning encompasses many tasks; soil texture retains detail."])
    assert "crop rotation planning" in {p.lower() for p in found} and "soil texture" in found
    assert not any(p.endswith(("encompasses", "retains")) for p in found)


def test_praise_and_cost_are_trimmed_from_a_phrase():
    found = texts(["We build an innovative irrigation planner and a time-consuming soil survey."])
    assert "irrigation planner" in found and "soil survey" in found
    assert not any(p.startswith(("innovative", "time-consuming")) for p in found)


def test_what_prior_work_uses_is_no_method_of_the_paper():
    found = {
        c.text: c
        for c in candidates(
            [
                "However, existing irrigation methods mainly rely on soil tensiometers.",
                "Prior works schedule water with fixed calendars.",
                "We propose DripNet, which schedules water with satellite imagery.",
                "Existing methods use crop coefficients, and we refine crop coefficients.",
            ]
        )
    }
    assert found["soil tensiometers"].prior and found["fixed calendars"].prior
    assert not found["satellite imagery"].prior and not found["crop coefficients"].prior
    different = {c.text: c for c in candidates(["Different from furrow irrigation, we use drips."])}
    assert different["furrow irrigation"].compared
    # A list after a colon is still prior work; "prior" alone is none.
    listed = {c.text: c for c in candidates(["Prior works use either: drip tape; furrow dams."])}
    assert listed["drip tape"].prior and listed["furrow dams"].prior
    bayes = {c.text: c for c in candidates(["Prior elicitation methods encode soil expertise."])}
    assert not any(c.prior for c in bayes.values())


def test_what_the_paper_studies_is_its_subject_with_what_it_is_of():
    found = texts(
        [
            "We study the sample complexity of robust mean estimation of heavy-tailed laws.",
            "Robust mean estimation matters in practice.",
        ]
    )
    subject = found["robust mean estimation of heavy-tailed laws"]
    assert subject.studied and subject.cue is Kind.PROBLEM
    assert not found["robust mean estimation"].studied  # only the whole subject is marked
    found = texts(
        ["In this paper we investigate the existence of partially observable equilibria."]
    )
    assert found["partially observable equilibria"].studied  # an adverb of the term stays
    found = texts(["We then analyze Hydra-Rank on sparse graphs."])
    assert found["Hydra-Rank"].studied and found["Hydra-Rank"].cue is Kind.METHOD
    found = texts(["In particular, we focus on glacier mass balance estimation from radar."])
    assert found["glacier mass balance estimation"].studied  # what the paper focuses on
    found = texts(["This paper focuses on the problem of tide gauge calibration."])
    assert found["tide gauge calibration"].studied


def test_a_lone_common_word_a_kind_noun_or_a_clause_is_no_studied_subject():
    for sentence in (
        "We study fairness in ranking.",
        "We then investigate the finite case.",
        "We study how agents coordinate.",
        "These estimators study nothing at all.",
        "We propose sparse routing for mixtures of experts.",
        "We study fully connected, convolutional and recurrent networks.",
        "We do not study Markov chains here.",
        "We do not focus on Markov chains here.",
        "We focus on how agents coordinate.",
    ):
        assert not any(c.studied for c in candidates([sentence])), sentence


def test_a_studied_subject_is_written_as_the_text_writes_it_and_without_its_kind_noun():
    found = texts(["This paper studies robust estimation of the covariance matrix."])
    assert found["robust estimation"].studied  # "of the ...": not a phrase the text writes
    assert not any(" of " in t for t in found)
    found = texts(["We study the stochastic multi-armed bandit problem."])
    assert found["stochastic multi-armed bandit"].studied


def test_a_phrase_before_a_measure_noun_is_cut_short_of_what_it_names():
    # "wall time" is a measure of a wall, no kind of wall: "quadtree wall" names nothing
    # here, while before a kind noun the words name the thing ("trellis pruning").
    found = texts(
        [
            "We show that quadtree wall time grows slowly.",
            "Bounds on quadtree wall time follow.",
            "The trellis pruning technique is fast.",
        ]
    )
    assert found["quadtree wall"].modifier
    assert not found["quadtree wall time"].modifier
    assert not found["trellis pruning"].modifier


def test_examples_listed_under_a_class_take_the_class_kind():
    found = texts(
        [
            "Ranking systems use different methods: pairwise rank prediction "
            "and listwise score generation.",
            "Downstream tasks such as citation triage are hard.",
        ]
    )
    assert found["pairwise rank prediction"].cue is Kind.METHOD
    assert found["listwise score generation"].cue is Kind.METHOD
    assert found["citation triage"].cue is Kind.PROBLEM
    # Without the class the head noun types them, as before.
    alone = texts(["We study pairwise rank prediction."])
    assert alone["pairwise rank prediction"].cue is Kind.PROBLEM


def test_a_web_or_mail_address_holds_no_phrase():
    found = texts(
        [
            "Code is at https://github.com/quill-lab/Quill-Net and www.quill.ai/docs.",
            "Mirror: gitlab.com/quill-lab/Quill-Core; write to Quill-Team@quill.edu.",
        ]
    )
    assert not any("/" in phrase or "quill" in phrase.lower() for phrase in found)


def test_a_capitalised_kind_noun_after_a_capitalised_word_is_part_of_the_name():
    found = texts(["Lattice Heat Network for Meshes.", "It runs on meshes."])
    assert found["Lattice Heat"].modifier  # only ever the start of the name
    assert not found["Lattice Heat Network"].modifier


def test_a_title_verb_ends_a_phrase():
    found = texts(["Sparse Coding Meets Graph Search.", "We join the two."])
    assert "Sparse Coding" in found and "Graph Search" in found
    assert not any("Meets" in phrase for phrase in found)


def test_a_definition_types_its_subject_but_proposes_nothing():
    found = texts(
        [
            "Lattice reduction is a technique for factoring integers.",
            "We prove that lattice reduction converges in few rounds.",
        ]
    )
    assert found["lattice reduction"].cue is Kind.METHOD
    assert not found["lattice reduction"].proposed


def test_what_is_no_list_of_examples_keeps_its_own_cue():
    # A title's subtitle after a capitalised plural, and a clause after a colon, list nothing.
    title = texts(["Sparse Methods: Pairwise Rank Prediction at Scale."])
    assert title["Pairwise Rank Prediction"].cue is Kind.PROBLEM
    clause = texts(["It meets two challenges: a noisy rank encoder slowly spoils the scores."])
    assert clause["noisy rank encoder"].cue is Kind.METHOD
    # The innermost list types what it lists.
    nested = texts(["Methods such as fusion (tasks such as citation triage) help."])
    assert nested["citation triage"].cue is Kind.PROBLEM


def test_a_kind_noun_after_a_name_is_not_part_of_it():
    found = texts(["Fast QRNN Models.", "We study QRNN models."])
    assert not found["QRNN"].modifier
