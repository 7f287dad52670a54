"""Candidate concept phrases in an abstract, with the lexical cues that type them.

Pure text logic, no model: a phrase never crosses punctuation, a function
word, a verb or an adverb ("sgd provably achieves" cannot come out), generic
phrases ("extensive experiments") are dropped, and acronym definitions in
either order are recognised. :mod:`kg.extract` ranks what comes out of here
with KeyBERT and decides the final types.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from kg.model import Kind

__all__ = [
    "Candidate",
    "candidates",
    "acronyms",
    "tokens",
    "is_generic",
    "names_quantity",
    "lower_case_words",
    "head",
    "singular",
    "looks_like_name",
    "abbreviates",
]

# A token: letters/digits, joined by inner hyphens, slashes, apostrophes or
# decimal points ("Clipped-SGD", "BG-0", "GPT-3.5", "vision-language").
_TOKEN = re.compile(r"[^\W_]+(?:(?:[-/'’+]|(?<=\d)\.(?=\d))[^\W_]+)*\+*", re.UNICODE)

# Function words: a phrase never spans one.
_FUNCTION = frozenset(
    """a about above across after again against all almost along already also although
    always am among amongst an and another any anyone anything are around as at be
    became because become becomes been before being below beside besides between beyond
    both but by can cannot could did do does doing done down due during each either else
    enough especially etc even ever every except few for from further had has have having
    he hence her here hers herself him his how however i ie eg if in indeed instead into
    is it its itself just less let like likely may me might more moreover most mostly much
    must my namely neither never nevertheless no nor not now of off often on once one only
    onto or other others otherwise our ours ourselves out over own per perhaps rather
    same several she should since so some such than that the their theirs them themselves
    then thence there thereby therefore these they this those though through throughout
    thus to together too toward towards under unless unlike until up upon us very via was
    we well were what whatever when whenever where whereas whether which while who whom
    whose why will with within without would yet you your yours versus vs i.e e.g
    et al cf respectively first second third two three four five six seven eight nine ten
    many much new novel behind beneath inside outside near alongside amid across beyond
    whereby wherein""".split()
)

# Verbs common in abstracts (any inflection listed): a phrase ends before them.
_VERBS = frozenset(
    """achieve achieves achieved achieving address addresses addressed addressing allow allows
    allowed apply applies applied arise arises aim aims align aligns alleviate alleviates
    attain attains attaining become becomes bring brings build builds built call called
    capture captures captured characterize characterizes characterized coin coined combine
    combines combined compare compares compared conduct conducts conducted consider considers
    considered consist consists construct constructs constructed contain contains converge
    converges converged demonstrate demonstrates demonstrated depend depends derive derives
    derived describe describes described design designs designed develop develops developed
    devise devises devised dub dubbed emerge emerges emerged employ employs employed enable
    enables enabled encourage encourages encouraging enjoy enjoys ensure ensures establish
    establishes established evaluate evaluates evaluated exhibit exhibits exhibited exist
    exists explore explores explored extend extends extended fail fails failed find finds
    found focus focuses focused follow follows followed gain gains garnered give gives given
    govern governs governing grow grows has have hold holds identify identifies identified
    improve improves improved include includes included including incorporate incorporates
    increase increases increased introduce introduces introduced investigate investigates
    investigated is are was were be been know known lack lacks lead leads leading learn
    learns leverage leverages leveraged leveraging limit limits make makes made match
    matches matching mitigate mitigates model's named need needs obtain obtains obtained
    offer offers offered outperform outperforms outperformed overcome overcomes perform
    performs performed present presents presented produce produces produced propose
    proposes proposed prove proves proved proven provide provides provided reach reaches
    recover recovers reduce reduces reduced rely relies relying remain remains remained
    reveal reveals revealed require requires required result results resulting scale
    scales seek seeks serve serves show shows showed shown solve solves solved study
    studies studied suffer suffers suggest suggests support supports surpass surpasses
    take takes taken tend tends termed uncover uncovers use uses used using utilize
    utilizes utilized verify verifies verified yield yields yielded works remains
    enjoying attaining spanning covering thereby existing making taking giving requiring
    outperforming achieving providing enabling allowing showing demonstrating
    providing proposing introducing presenting showing studying exploring improving
    establishing enhancing reducing increasing minimizing maximizing ensuring handling
    employing addressing accelerates accelerate causes cause excel excels lag lags explains
    explain governs involves involve offers reveals remains tends yields allows captures
    exhibits relies fails holds lies lie enables improves outperforms achieves provides
    suffers arises emerges depends focuses aims seeks incurs incur poses pose hinders hinder
    contribute contributes
    struggle struggles underperform underperforms degrade degrades boost boosts preserve
    preserves violate violates dominate dominates restore restores recover recovers
    exceed exceeds attain attains facilitate facilitates fulfil fulfils satisfy satisfies
    guarantee guarantees ensure induce induces encode encodes represent represents
    correspond corresponds determine determines examine examines examined examining
    assess assesses assessed quantify quantifies quantified infer infers exploit exploits
    exploited enhance enhances""".split()
)

# Adjectives that add nothing to a concept: stripped from a phrase's start.
_WEAK_MODIFIERS = frozenset(
    """novel new existing recent prior previous extensive theoretical empirical experimental
    simple efficient effective strong key main general various different several standard
    popular famous first optimal better best significant comprehensive broad wide large small
    real-world practical current traditional conventional classical common specific original
    overall high low important promising powerful principled unified improved superior
    competitive remarkable substantial additional further multiple diverse challenging
    fundamental critical crucial major minor certain particular typical widely well-known
    state-of-the-art sota potential possible numerous considerable consistent extensive
    underexplored undesirable rigorous detailed careful thorough open emerging growing
    increasing notable surprising compelling realistic desirable limited highly simple
    same similar whole entire other such respective corresponding underlying resulting
    proposed associated relevant related given above following latter former deeper higher
    lower larger smaller faster slower stronger weaker greater fewer richer simpler harder
    easier complex true guided scalable lightweight flexible generic arbitrary naive
    natural sufficient necessary exact precise accurate reliable tractable intractable
    valid appropriate suitable desired competing powerful broad key""".split()
)

# Nouns that, on their own or with only weak modifiers, name no concept.
_GENERIC_NOUNS = frozenset(
    """method approach framework model result work paper experiment performance problem
    task analysis algorithm technique study data setting theory evidence improvement
    baseline benchmark accuracy way range number set tool gap factor property insight
    finding contribution application case term step variant version component strategy
    scheme procedure process system solution question challenge issue aspect perspective
    effect impact role behavior behaviour regime condition assumption guarantee bound rate
    order level type form kind class family area field domain literature practice knowledge
    understanding efficiency quality effectiveness gain point time cost amount use need goal
    design idea notion concept mechanism module lens view manner fashion state art
    researcher people user community line direction attention interest limitation drawback
    advantage benefit strength weakness scenario situation context trend fact example
    instance demonstration observation phenomenon formulation implementation code extension
    generalisation version purpose end means part piece element feature characteristic
    capability ability capacity paradigm pipeline architecture network dataset score value
    metric measure evaluation experiment task-specific state-of-the-art average percent
    lot majority variety series suite collection total magnitude degree extent room
    recipe principle lesson outcome output input choice option""".split()
)

# Head nouns that mark a method, or a problem (after singularisation).
METHOD_HEADS = frozenset(
    """method algorithm model network net architecture framework estimator optimizer optimiser
    descent procedure technique scheme approach mechanism transformer attention sampler
    regularization regularisation regularizer pruning distillation quantization tuning
    fine-tuning finetuning encoder decoder autoencoder embedding loss objective rule strategy
    protocol search clipping momentum gradient kernel tree forest classifier pipeline module
    layer operator solver heuristic prompting augmentation masking normalization
    normalisation initialization dropout ensemble adapter adaptation recursion update
    policy-gradient rl-algorithm mixture sketch filter test bootstrap relaxation
    decomposition factorization factorisation projection quadrature integrator planner
    agent baseline-method retriever generator discriminator critic tokenizer tokenization
    learning-rule backpropagation bagging boosting""".split()
)
PROBLEM_HEADS = frozenset(
    """problem task challenge identification detection classification segmentation generation
    prediction forecasting estimation recognition convergence generalization generalisation
    robustness alignment hallucination reasoning planning translation retrieval forgetting
    shift noise attack privacy fairness bias overfitting imbalance exploration control
    understanding answering summarization completion localization tracking reconstruction
    synthesis editing discovery collapse accumulation complexity scalability
    interpretability explainability uncertainty safety security vulnerability leakage
    attribution optimization optimisation minimization maximization recovery matching
    inference decoding calibration compression acceleration selection allocation
    navigation manipulation transfer bottleneck instability degradation drift corruption
    contamination misalignment jailbreak jailbreaking unlearning memorization
    identifiability approximation learnability regret coordination""".split()
)

# Heads that name a quantity, a property or an assumption: such a phrase is
# neither a method nor a problem ("first-order regret bound", "eluder
# dimension", "Gaussian marginals", "2-sub-Gaussian rewards").
_QUANTITY_HEADS = frozenset(
    """bound dimension property assumption condition marginal reward utility step guarantee
    rate frontier constant coefficient threshold budget ratio lemma theorem inequality""".split()
)


def names_quantity(phrase: str) -> bool:
    """Whether a phrase names a quantity or property rather than a method or problem.

    >>> names_quantity("first-order regret bound"), names_quantity("Clipped-SGD")
    (True, False)
    """
    return head(phrase) in _QUANTITY_HEADS and not any(looks_like_name(w) for w in phrase.split())


_PROPOSE_CUE = re.compile(
    r"\b(?:we|this (?:paper|work)|our (?:paper|work))\s+(?:\w+\s+){0,3}?"
    r"(?:propose|proposes|introduce|introduces|present|presents|develop|develops|design|"
    r"designs|devise|devises|contribute|contributes|build|builds)\b",
    re.IGNORECASE,
)
_NAMING_CUE = re.compile(
    r"\b(?:call|calls|called|coin|coined|dub|dubbed|name|named|term|termed)\b", re.IGNORECASE
)
_PROBLEM_CUE = re.compile(
    r"\b(?:address|addresses|addressing|tackle|tackles|tackling|solve|solves|solving|"
    r"mitigate|mitigates|mitigating|overcome|overcomes|alleviate|alleviates|study|studies|"
    r"investigate|investigates|consider|considers|focus on|focuses on|challenge of|"
    r"problem of|task of|issue of|suffer from|suffers from|vulnerable to)\b",
    re.IGNORECASE,
)

_ACRONYM = re.compile(r"^(?=[^\s]*[A-Z][^\s]*[A-Z])[A-Za-z0-9][A-Za-z0-9\-]{0,14}s?$")
_PAREN = re.compile(r"\(([^()]{1,80})\)")


@dataclass(frozen=True)
class Candidate:
    """A phrase as written in one sentence, with its typing cues.

    Attributes:
        text: The phrase as written.
        sentence: Index of the sentence it occurs in (first occurrence).
        cue: The kind its wording or context suggests, or None.
        proposed: True when the sentence says the paper introduces it.
        expansion: The long form, when the paper defines ``text`` as an acronym.
    """

    text: str
    sentence: int
    cue: Kind | None = None
    proposed: bool = False
    expansion: str | None = None


def tokens(text: str) -> list[tuple[str, int, int]]:
    """Tokens with their character offsets.

    >>> [t for t, _, _ in tokens("Clipped-SGD, under heavy-tailed noise.")]
    ['Clipped-SGD', 'under', 'heavy-tailed', 'noise']
    """
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


_NOT_PLURAL = frozenset(
    "bias alias atlas canvas gas lens chaos ethos kudos series species means news".split()
)


def singular(word: str) -> str:
    """A conservative singular for a phrase's last word.

    >>> [singular(w) for w in ["LoRAs", "LLMs", "models", "dynamics", "analysis", "policies"]]
    ['LoRA', 'LLM', 'model', 'dynamics', 'analysis', 'policy']
    """
    low = word.lower()
    if low in _NOT_PLURAL:
        return word
    if len(word) > 3 and word[-1] == "s" and word[-2].isupper():
        return word[:-1]  # LLMs, LoRAs, GNNs
    if len(low) <= 3 or not low.endswith("s") or low.endswith(("ss", "us", "is", "ics", "ous")):
        return word
    if low.endswith("ies") and len(low) > 4:
        return word[:-3] + ("Y" if word[-3].isupper() else "y")
    if low.endswith(("ches", "shes", "xes", "sses", "zes")):
        return word[:-2]
    return word[:-1]


def head(phrase: str) -> str:
    """The lower-cased singular last word: English noun phrases end with their head."""
    words = phrase.split()
    return singular(words[-1]).lower() if words else ""


def _is_weak(word: str) -> bool:
    return word.lower() in _WEAK_MODIFIERS or word.lower() in _FUNCTION


# Head words too broad to stand alone as a concept ("convergence", "noise").
_BARE_TOO_BROAD = frozenset(
    """gradient descent loss objective rule test update layer operator search noise prediction
    generation estimation convergence optimization optimisation inference decoding control
    selection matching approximation complexity recovery detection reconstruction
    accumulation transfer shift acceleration compression translation retrieval tuning
    embedding encoder decoder kernel tree filter agent policy sketch projection
    decomposition mixture module planner critic generator classifier solver heuristic
    strategy protocol mechanism attack bias understanding reasoning planning synthesis
    editing discovery tracking completion answering collapse calibration allocation
    navigation manipulation bottleneck instability degradation drift corruption regret
    coordination uncertainty safety security learning training sampling""".split()
)


def is_generic(phrase: str) -> bool:
    """True for phrases that name no concept ("theoretical results", "recent work").

    >>> [is_generic(p) for p in ["extensive experiments", "novel framework", "gradient clipping"]]
    [True, True, False]
    """
    words = [w.lower() for w in phrase.split()]
    if not words:
        return True
    if all(_is_weak(w) or singular(w).lower() in _GENERIC_NOUNS for w in words):
        return True
    if len(words) == 1:
        word = words[0]
        return len(word) < 3 or word.isdigit() or singular(word).lower() in _BARE_TOO_BROAD
    return False


# Gerunds that name things ("learning rate", "clipping"); other -ing words are verbs.
_NOMINAL_ING = frozenset(
    """learning training sampling clipping pruning masking scaling matching tuning fine-tuning
    finetuning prompting decoding encoding embedding planning reasoning computing processing
    ranking clustering boosting bagging hashing pooling smoothing forecasting modeling
    modelling labeling labelling mixing gating routing streaming tracking editing inpainting
    shaping mapping understanding answering engineering programming filtering denoising
    captioning grounding parsing tagging rendering retrieval-augmented sketching coding
    imaging reweighting weighting thresholding forgetting unlearning jailbreaking painting
    splatting morphing blending warping stitching caching batching scheduling""".split()
)
# Citation keys such as "LWZ25b" or "Smith2020" are not concepts.
_CITATION = re.compile(r"^(?:[A-Z]{2,5}\d{2}[a-z]?|[A-Z][a-z]+\d{4}[a-z]?)$")
# Adjective endings, and the nouns that share them: a phrase does not end in an adjective.
_ADJ_ENDING = re.compile(r"(?:ous|ical|ive|able|ible|ic|al|ful|less|ary)$")
_NOUNS_LIKE_ADJ = frozenset(
    """signal interval proposal trial potential retrieval removal survival rehearsal reversal
    dual tutorial material journal animal arrival rival individual terminal capital principal
    approval denial appraisal referral recital objective alternative primitive derivative
    directive incentive representative initiative perspective narrative archive detective
    metric heuristic logic topic arithmetic mechanic music clinic epidemic critic fabric
    mosaic rubric tactic variable table cable syllable deliverable observable dictionary
    boundary summary vocabulary library memory inventory trajectory category history theory
    binary auxiliary adversary primary secondary itinerary anniversary commentary
    diary salary territory vessel model label kernel channel panel level novel
    pedal rationale total manual mammal scandal portal canal chemical""".split()
)


# Nouns that end like a verb in -ise ("pairwise" and the other -wise words aside).
_NOT_VERB_ISE = frozenset(
    """expertise premise premises exercise exercises enterprise enterprises franchise
    compromise compromises merchandise surprise surprises promise promises demise treatise
    paradise""".split()
)


def _adjective(word: str) -> bool:
    low = word.lower().split("-")[-1]
    return bool(_ADJ_ENDING.search(low)) and low not in _NOUNS_LIKE_ADJ and not word.isupper()


def _breaks(word: str) -> bool:
    low = word.lower()
    if low in _FUNCTION or low in _VERBS or _CITATION.match(word) or len(word) == 1:
        return True
    if (
        low.endswith("ly")
        and len(low) > 4
        and low not in {"family", "anomaly", "assembly", "supply"}
    ):
        return True  # adverbs: "provably", "consistently"
    if word.islower() and len(low) > 6 and low.endswith(("ize", "izes", "ise", "ises")):
        return not low.endswith("wise") and low not in _NOT_VERB_ISE  # "incentivize"
    return bool(re.fullmatch(r"[\d.+\-/]+", low))  # bare numbers


def _chunks(sentence: str) -> list[list[str]]:
    """Maximal runs of content tokens not separated by punctuation or break words."""
    sentence = re.sub(r"['’]s\b", ",", sentence)  # a possessive ends a phrase
    runs: list[list[str]] = []
    current: list[str] = []
    last_end = 0
    for tok, start, end in tokens(sentence):
        gap = sentence[last_end:start]
        verb_ing = tok.lower().endswith("ing") and tok.lower() not in _NOMINAL_ING
        if (
            current
            and current[-1].lower().endswith("ing")
            and len(current) == 1
            and (_is_weak(tok) or _adjective(tok))
        ):
            current = []  # "Training powerful AI": a gerund before an adjective is a verb
        if current and (gap.strip() or _breaks(tok) or verb_ing or _plural_noun(current[-1])):
            runs.append(current)
            current = []
        if not _breaks(tok) and not verb_ing:
            current.append(tok)
        last_end = end
    if current:
        runs.append(current)
    return runs


def _plural_noun(word: str) -> bool:
    """A lower-case plural ends a noun phrase ("methods outperform ...")."""
    return word.islower() and singular(word) != word and "-" not in word


# Adverbs of time that can close a run of nouns ("predict the target label later").
_TIME_ADVERBS = frozenset("later earlier afterwards thereafter beforehand anymore".split())


def _trim(words: list[str]) -> list[str]:
    """Drop weak modifiers at the start and participles/adjectives at the end."""
    while words and _is_weak(words[0]):
        words = words[1:]
    while words and (
        _is_weak(words[-1])
        or (words[-1].lower().endswith("ed") and "-" not in words[-1])
        or _adjective(words[-1])
        or words[-1].lower() in _TIME_ADVERBS
    ):
        words = words[:-1]
    return words


def looks_like_name(word: str) -> bool:
    """Acronyms and mixed-case names: SGD, LoRA, Dual-MTP, GPT-4, BG-0.

    >>> [looks_like_name(w) for w in ["SGD", "LoRA", "Dual-MTP", "Transformer", "2-sub"]]
    [True, True, True, False, False]
    """
    if not word[:1].isalpha():
        return False
    core = word.rstrip("s") if len(word) > 2 else word
    upper = sum(c.isupper() for c in core)
    return (
        upper >= 2
        or (upper >= 1 and any(c.isdigit() for c in core))
        or (upper == 1 and not core[0].isupper())
    )


def acronyms(sentence: str) -> dict[str, str]:
    """Acronyms a sentence defines, mapped to their expansions.

    Both orders are recognised, and letters may come from inside words
    ("INformative" gives IN) or skip function words.

    >>> acronyms("Stochastic Gradient Descent (SGD) is simple.")
    {'SGD': 'Stochastic Gradient Descent'}
    >>> acronyms("we propose LoRA (low-rank adaptation) for fine-tuning")
    {'LoRA': 'low-rank adaptation'}
    >>> acronyms("Generic INformative OPtimism (GINOP) works")
    {'GINOP': 'Generic INformative OPtimism'}
    """
    found: dict[str, str] = {}
    for match in _PAREN.finditer(sentence):
        inside = match.group(1).strip()
        before = [t for t, _, _ in tokens(sentence[: match.start()])][-12:]
        if _ACRONYM.match(inside) and before:
            expansion = _match_expansion(inside, before)
            if expansion:
                found[inside] = expansion
            continue
        inner = [t for t, _, _ in tokens(inside)]
        if before and len(inner) >= 2 and _ACRONYM.match(before[-1]):
            expansion = _match_expansion(before[-1], inner)
            if expansion and expansion == " ".join(inner[-len(expansion.split()) :]):
                found[before[-1]] = expansion
    return found


def _letters(acronym: str) -> str:
    core = acronym[:-1] if acronym.endswith("s") and acronym[-2:-1].isupper() else acronym
    return "".join(c for c in core if c.isalnum()).lower()


def _match_expansion(acronym: str, words: list[str]) -> str | None:
    """The shortest run of trailing ``words`` whose initials spell ``acronym``."""
    letters = _letters(acronym)
    if len(letters) < 2:
        return None
    for n in range(1, min(len(words), len(letters) + 4) + 1):
        span = words[-n:]
        if span[0].lower() in _FUNCTION:
            continue
        if _spells(letters, span):
            return " ".join(span)
    return None


def abbreviates(acronym: str, phrase: str) -> bool:
    """Whether ``acronym`` can stand for ``phrase``, with no word skipped.

    Stricter than a definition in the text ("Low-Rank Adaptation (LoRA)"): used
    to join an acronym and a phrase that no paper explicitly connects.

    >>> abbreviates("LoRA", "low-rank adaptation"), abbreviates("GAN", "graph attention")
    (True, False)
    """
    letters = _letters(acronym)
    words = phrase.split()
    if len(letters) < 3 or len(words) < 2 or words[0][:1].lower() != letters[:1]:
        return False
    return _spells(letters, words, skips=0)


def _spells(letters: str, words: list[str], skips: int = 1, first: bool = True) -> bool:
    """Whether the words, in order, supply the letters (each word a prefix).

    Function words may give no letter; so may at most ``skips`` other words
    after the first ("Importance Weights for Shifting Means" spells ISM).
    """
    if not letters:
        return all(w.lower() in _FUNCTION for w in words)
    if not words:
        return False
    word, rest = words[0], words[1:]
    parts = [p for p in re.split(r"[-/]", word) if p]
    if len(parts) > 1:  # each part of a hyphenated word spells on its own
        return _spells(letters, parts + rest, skips, first)
    low = word.lower()
    if not first and low in _FUNCTION and _spells(letters, rest, skips, False):
        return True
    if any(
        low[:k] == letters[:k] and _spells(letters[k:], rest, skips, False)
        for k in range(min(len(low), len(letters)), 0, -1)
    ):
        return True
    return not first and skips > 0 and bool(rest) and _spells(letters, rest, skips - 1, False)


def _cue(phrase: str) -> Kind | None:
    h = head(phrase)
    last = phrase.split()[-1]
    if h in _GENERIC_NOUNS and h not in METHOD_HEADS | PROBLEM_HEADS:
        return None
    if h in PROBLEM_HEADS:
        return Kind.PROBLEM
    if h in METHOD_HEADS or any(looks_like_name(w) for w in phrase.split()):
        return Kind.METHOD
    if "-" in last and head(last.split("-")[-1]) in METHOD_HEADS:
        return Kind.METHOD
    return None


def _spans(words: list[str], max_len: int) -> Iterable[list[str]]:
    n = len(words)
    for i in range(n):
        for j in range(i + 1, min(n, i + max_len) + 1):
            yield words[i:j]


def lower_case_words(texts: Iterable[str]) -> frozenset[str]:
    """The words ``texts`` write in lower case (hyphenated words whole).

    >>> sorted(lower_case_words(["Neural nets", "spiking neural networks"]))
    ['nets', 'networks', 'neural', 'spiking']
    """
    return frozenset(w for t in texts for w in re.findall(r"(?<![\w-])[a-z][a-z-]*", t))


def candidates(
    sentences: list[str],
    max_words: int = 4,
    terms: frozenset[str] = frozenset(),
    ordinary: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """Every candidate phrase of an abstract, first occurrence first.

    A phrase that starts with a weak modifier ("large", "deep") is normally
    trimmed away, but not when the whole phrase is an established term: one
    of ``terms`` (lower-case; kg passes its field labels, such as "large
    language models") or the expansion of an acronym the abstract defines.
    A capital at the start of a sentence is dropped from a word the abstract
    also writes in lower case, or that is one of ``ordinary`` (kg passes the
    words its field labels write in lower case, such as "neural").

    >>> [c.text for c in candidates(["SGD provably achieves last-iterate convergence."])]
    ['SGD', 'last-iterate', 'last-iterate convergence']
    """
    defined: dict[str, str] = {}
    for sentence in sentences:
        for short, long in acronyms(sentence).items():
            defined.setdefault(short, long)
    expansions = {e.lower(): a for a, e in defined.items()}
    # Words the abstract also writes in lower case: a capital on them at the
    # start of a sentence is not part of the name ("Spatial cognition").
    lower_words = lower_case_words(sentences) | ordinary

    seen: dict[str, Candidate] = {}
    for index, sentence in enumerate(sentences):
        proposing = bool(_PROPOSE_CUE.search(sentence))
        naming = _NAMING_CUE.search(sentence)
        problem_context = _PROBLEM_CUE.search(sentence)
        for run in _chunks(sentence):
            for span in _spans(run, max_words):
                whole = " ".join(span).lower()
                fixed = whole in terms or whole in expansions
                words = span if fixed else _trim(span)
                if not words or len(words) != len(span) or is_generic(" ".join(words)):
                    continue
                text = " ".join(words)
                key = text.lower()
                if key in seen:
                    continue
                cue = _cue(text)
                position = sentence.find(text)
                if cue is None and _introduced_name(sentence, text):
                    cue = Kind.METHOD
                cue_end = _first_end(_PROPOSE_CUE, sentence)
                after_propose = proposing and cue_end < position < _window_end(sentence, cue_end)
                after_naming = naming is not None and naming.end() <= position < _window_end(
                    sentence, naming.end()
                )
                if (
                    cue is None
                    and problem_context
                    and position > problem_context.start()
                    and head(text) not in _GENERIC_NOUNS
                ):
                    cue = Kind.PROBLEM if len(words) > 1 else None
                acr = text if text in defined else expansions.get(key)
                if (after_propose or after_naming) and (acr or looks_like_name(text)):
                    cue = Kind.METHOD  # "a framework called Component-wise Replacement ..."
                proposed = (after_propose or after_naming) and (
                    cue is Kind.METHOD or acr is not None or after_naming
                )
                expansion = defined.get(text)
                first = words[0]
                if position == 0 and first[1:].islower() and first.lower() in lower_words:
                    text = first.lower() + text[len(first) :]
                seen[key] = Candidate(
                    text=text,
                    sentence=index,
                    cue=cue,
                    proposed=proposed,
                    expansion=expansion,
                )
    return _share_proposal(seen, defined)


def _share_proposal(seen: dict[str, Candidate], defined: dict[str, str]) -> list[Candidate]:
    """An acronym is proposed when its expansion is, and the reverse."""
    for acr, exp in defined.items():
        pair = [seen.get(acr.lower()), seen.get(exp.lower())]
        if any(c and c.proposed for c in pair):
            for c in pair:
                if c and not c.proposed:
                    seen[c.text.lower()] = replace(c, proposed=True, cue=Kind.METHOD)
    return list(seen.values())


_NAME_SLOT = re.compile(
    r"(?:propose[sd]?|introduce[sd]?|present[sd]?|call(?:ed)?|name[sd]?|dub(?:bed)?|term(?:ed)?)"
    r"\s+(?:(?:a|an|the|our|it|this|them)\s+)?(?:(?:new|novel|simple)\s+)?"
    r"([A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,3})",
)


def _introduced_name(sentence: str, text: str) -> bool:
    """Whether the sentence introduces ``text`` by name: "we propose Curio, ..."."""
    return any(m.group(1) == text for m in _NAME_SLOT.finditer(sentence))


_WINDOW_STOP = re.compile(
    r"\s(?:based on|that|which|to|for|of|in|on|with|by|from|using|where|whose|and)\s|[;:()]"
)


def _window_end(sentence: str, start: int) -> int:
    """End of what a propose verb introduces: the name and its appositive, not the rest.

    In "we propose Curio, an intrinsic reward based on the prediction error of a
    dynamics model", Curio and "intrinsic reward" are proposed, the model is not.
    """
    stop = _WINDOW_STOP.search(sentence, start)
    return stop.start() if stop else len(sentence)


def _first_end(pattern: re.Pattern[str], sentence: str) -> int:
    match = pattern.search(sentence)
    return match.end() if match else len(sentence)
