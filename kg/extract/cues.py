"""What a sentence says about the phrases in it: the cues that type and mark a proposal.

"We propose X", "a framework called X", "a new method for A via X", "we address
X", "X is a technique for ...": :class:`Context` reads one sentence once and
tells, for a phrase at a position, whether the sentence introduces it, names
it, defines it or states it as the problem. :func:`cue_of` gives the kind a
phrase's own wording suggests (its head noun, a name). Pure text logic, used
by :mod:`kg.extract.candidates`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kg.extract.phrases import tokens, written
from kg.lexicon import (
    CLASS_NOUNS,
    ESTABLISHED,
    GENERIC_NOUNS,
    KIND_NOUNS,
    METHOD_HEADS,
    PROBLEM_HEADS,
    STOP_WORDS,
    VERBS,
    head,
    looks_like_name,
    zipf,
)
from kg.model import Kind

__all__ = ["Context", "compared_only", "prior_only", "cue_of", "introduced_name"]

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
_NAME_SLOT = re.compile(
    r"\b(?:propose[sd]?|introduce[sd]?|present[sd]?|develop(?:s|ed)?|call(?:ed)?|name[sd]?|"
    r"dub(?:bed)?|term(?:ed)?)"
    r"\s+(?:(?:a|an|the|our|it|this|them)\s+)?(?:(?:new|novel|simple)\s+)?"
    # "we introduce an algorithm Zappa": the kind of thing, then its name
    rf"(?:(?:{'|'.join(map(re.escape, sorted(KIND_NOUNS)))})\s+)?"
    r"([A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,3}|[a-z]+[A-Z][\w\-]*)",
)
# A name the paper gives its own method beside what kind of thing it is: "Our algorithm
# (GLIMR) mixes ...", "Our estimator, KernelMix, is ...", "we present a planning network
# (ArborQ) that ...". The kind's head is checked in :func:`_own_names`.
_OWN_NAMED = re.compile(
    r"\b(?:our|(?:we|this (?:paper|work))\s+(?:\w+\s+){0,2}?"
    r"(?:propose|introduce|present|develop)(?:s|d|ed)?\s+(?:an?|the|our))"
    r"\s+(?P<what>(?:[\w-]+\s+){0,3}?[\w-]+)\s*(?:\(|,\s+)(?P<name>(?-i:[A-Z])[\w-]*)"
    r"(?=\s*[),])",
    re.IGNORECASE,
)
# What a paper names beside "our" but did not make: "our teacher model (Llama-2)".
_NOT_OWN = frozenset(
    {"base", "baseline", "teacher", "backbone", "pretrained", "pre-trained", "reference"}
)
# A class named in the plural, then its examples: "methods: A, B and C", "algorithms like
# A and B", "tasks such as A", "methods (e.g., A)". The examples are of the class's kind
# (:func:`_listed`).
_LISTING = re.compile(
    r"\b(?P<noun>(?-i:[A-Za-z][a-z]+))\s*(?::|\(?\s*(?:such as|like|including|e\.g\.)[,:]?)\s+",
    re.IGNORECASE,
)
_WINDOW_STOP = re.compile(
    r"\s(?:based on|that|which|to|for|of|in|on|with|by|from|using|where|whose|and)\s|[;:()]"
)
# How a proposed method is reached when the proposal names only a generic
# object: "a new framework for X via Y", "results using Y".
_MEANS = re.compile(r"\b(?:via|using|based on|by means of|through)\s", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[;.]|,\s(?:which|where|in which|and we)\b")
# What a paper compares itself with, not what it uses: "outperforms X", "compared to X",
# "faster than X", "unlike X", "instead of X", "rather than X", "in contrast to X", "over the
# baselines X". The phrase follows the
# cue within a few words that start no new phrase of their own (no punctuation, preposition or
# conjunction between: "outperforms SGD on federated learning" compares SGD, not the task).
_CUE = (
    r"\b(?:compared (?:to|with)|in comparison (?:to|with)|outperform\w*|surpass\w*|beats?|"
    r"dominat(?:e|es|ed)|improv(?:e|es|ed|ing) (?:over|upon)|unlike|different from|than|"
    r"instead of|rather than|in contrast to|contrary to|as opposed to|baselines?)\b"
)
_COMPARED = re.compile(_CUE + r"(?P<gap>[^.;,:()]{0,25})$", re.IGNORECASE)
# "... beats the classic planners (e.g., A* and RRT": the examples of what is compared.
_COMPARED_EXAMPLES = re.compile(
    _CUE + r"(?P<gap>[^.;,:()]{0,40})\((?:e\.g\.|such as|including)[,:]?\s+"
    r"(?:[^()]*(?:,|\band\b|\bor\b)\s+)?$",
    re.IGNORECASE,
)
# A sentence about prior work: "Existing methods mainly ...", "However, current approaches
# typically rely on X", "Prior works ...", "Recent ... methods have largely followed X". The
# methods it names are others', not the paper's (a paper may build on one, and lose it).
# "Prior" only as "prior work" and the like: "prior elicitation methods" are no prior work.
_PRIOR_WORK = re.compile(
    r"(?:(?:however|but|yet|unfortunately|nevertheless|typically|traditionally),?\s+)?"
    r"(?:(?:most|many|some|several)\s+(?:of\s+(?:the\s+)?)?)?"
    r"(?:(?:existing|previous|current|conventional|traditional|recent)\s+(?:[\w-]+\s+){0,4}?|"
    r"prior\s+)(?:methods?|approach(?:es)?|works?|studies|techniques?|algorithms?|solutions?|"
    r"literature|efforts?|research|art)\b",
    re.IGNORECASE,
)
# Where a sentence about prior work turns to the paper's own ("..., and we refine X",
# "whereas X-Net handles them"); a colon or semicolon does not: it lists the prior work.
_OWN_WORK = re.compile(
    r"\b(?:we|our|ours|us|here|this (?:paper|work|study)|whereas|in contrast|instead)\b",
    re.IGNORECASE,
)
_GAP_BREAK = re.compile(
    r"\b(?:on|in|for|across|at|by|from|with|to|of|over|under|and|or|while|when|where|which|that|"
    r"is|are|was|were)\b",
    re.IGNORECASE,
)
# "Dropout is a technique for ...": a definition that types its subject as a method. It does not
# make it the paper's proposal: in ICML and ICLR 2024 and Inspec train, every abstract that
# opens so defines the field it builds on ("Cutting plane methods are a fundamental approach
# for solving ...").
_DEFINITION = re.compile(
    r"^(?P<subject>[^,;:()]{2,60}?)\s+(?:is|are)\s+(?:an?|the)\s+(?P<adjectives>(?:[\w-]+\s+){0,3}?)"
    r"(?:technique|method|approach|framework|algorithm|procedure|strategy|scheme|architecture|"
    r"paradigm|model|regularizer|optimizer)s?\s+(?:for|that|to|which)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Context:
    """Where in one sentence its cues put a phrase."""

    sentence: str
    propose: tuple[int, int] | None  # what a propose verb introduces
    naming: tuple[int, int] | None  # what "called"/"dubbed" introduces
    means: tuple[int, int] | None  # how a generic proposal works: "via Y", "using Y"
    definition: tuple[int, int] | None  # the subject of "X is a technique for ..."
    problem_from: int | None  # after "we address", "the problem of"
    own_names: tuple[tuple[int, int], ...] = ()  # "our sampler (GLIMR)": the names
    listed: tuple[tuple[int, int, Kind], ...] = ()  # "methods: A, B": the examples, kind

    @classmethod
    def of(cls, sentence: str) -> Context:
        propose = naming = means = definition = None
        if m := _PROPOSE_CUE.search(sentence):
            propose = (m.end() + 1, _window_end(sentence, m.end()))
            if _generic_object(sentence[propose[0] : propose[1]]):
                means = _means_window(sentence, propose[1])
        if m := _NAMING_CUE.search(sentence):
            naming = (m.end(), _window_end(sentence, m.end(), naming=True))
        if (m := _DEFINITION.match(sentence)) and not (
            set(m.group("adjectives").lower().split()) & ESTABLISHED
        ):
            definition = (0, m.end("subject"))
        problem = _PROBLEM_CUE.search(sentence)
        return cls(
            sentence,
            propose,
            naming,
            means,
            definition,
            problem.start() + 1 if problem else None,
            _own_names(sentence),
            _listed(sentence),
        )

    def introduces(self, position: int) -> bool:
        """Whether a phrase at ``position`` is what the sentence says the paper introduces."""
        return any(
            w is not None and w[0] <= position < w[1]
            for w in (self.propose, self.naming, self.means, *self.own_names)
        )

    def listed_as(self, position: int, length: int) -> Kind | None:
        """The kind of the class a phrase is listed as an example of, if it is (of the innermost
        list: "methods such as X for tasks such as Y" lists Y as a task)."""
        inside = [
            (start, kind) for start, end, kind in self.listed if start <= position <= end - length
        ]
        return max(inside, key=lambda found: found[0])[1] if inside else None  # the innermost

    def in_own_name(self, position: int) -> bool:
        return any(start <= position < end for start, end in self.own_names)

    def in_naming(self, position: int) -> bool:
        return self.naming is not None and self.naming[0] <= position < self.naming[1]

    def in_means(self, position: int) -> bool:
        return self.means is not None and self.means[0] <= position < self.means[1]

    def defines(self, position: int, length: int) -> bool:
        """Whether a phrase is the whole subject of a definition ("Dropout is a technique")."""
        return self.definition is not None and position == 0 and length == self.definition[1]


def _own_names(sentence: str) -> tuple[tuple[int, int], ...]:
    """Where the sentence names the paper's own method beside its kind: "Our algorithm
    (GLIMR)", "our estimator, KernelMix,". The name is an acronym, a mixed-case name or a
    capitalised word that is no common English word ("Quillon", not "Appendix").

    >>> s = "Our sampler (GLIMR) mixes in linear time."
    >>> [s[a:b] for a, b in _own_names(s)]
    ['GLIMR']
    >>> _own_names("Our method (Appendix) and our teacher model (GPT-4) are shown.")
    ()
    >>> _own_names("Our method, provably, converges.")
    ()
    """
    found = []
    for m in _OWN_NAMED.finditer(sentence):
        name = m.group("name")
        what = m.group("what").lower().split()
        if (
            head(m.group("what")) in KIND_NOUNS | METHOD_HEADS
            and not _NOT_OWN & set(what)
            and (looks_like_name(name) or zipf(name.lower()) < _COMMON_ZIPF)
        ):
            found.append(m.span("name"))
    return tuple(found)


# Plural classes whose examples a sentence may list, and the kind of those examples.
_LISTED_CLASSES = {
    **{noun: Kind.METHOD for noun in CLASS_NOUNS - {"applications", "baselines", "tasks"}},
    "models": Kind.METHOD,
    "tasks": Kind.PROBLEM,
    "problems": Kind.PROBLEM,
    "challenges": Kind.PROBLEM,
}
# What ends a list: a verb, a word that opens a clause, a pronoun.
_LIST_STOP = VERBS | {
    "which", "that", "where", "whose", "while", "when", "but",
    "we", "it", "they", "this", "these", "those", "our", "its", "their",
}  # fmt: skip
# The longest example a list holds; a longer run is a clause, not an example.
_LIST_ITEM_WORDS = 5


def _listed(sentence: str) -> tuple[tuple[int, int, Kind], ...]:
    """Where the sentence lists examples of a class of methods or problems, and its kind.

    The class is a plural kind noun (``kg/lexicon/class_nouns.txt``, models, problems,
    challenges) in lower case: a title's "Sparse Shifts: Adaptive Tuning" lists nothing.
    The examples run to the end of the list: a semicolon, a colon, a closing parenthesis
    the list is in, a verb, a word that opens a clause ("which", "but") or a pronoun, or an
    example longer than five words (a clause: "two challenges: label noise corrupts ...").

    >>> s = "Rankers use methods: pairwise swaps, score fusion (SF-1), and bagging."
    >>> [(s[a:b], kind.value) for a, b, kind in _listed(s)]
    [('pairwise swaps, score fusion (SF-1), and bagging', 'method')]
    >>> s = "Tasks such as entity linking are hard; methods (e.g., beam search) fail."
    >>> [(s[a:b], kind.value) for a, b, kind in _listed(s)]
    [('entity linking', 'problem'), ('beam search', 'method')]
    >>> _listed("The data: images and text."), _listed("Sparse Methods: Fast Tuning at Scale")
    ((), ())
    >>> _listed("It meets two challenges: label noise slowly spoils the reward model.")
    ()
    """
    found = []
    for m in _LISTING.finditer(sentence):
        noun = m.group("noun")
        kind = _LISTED_CLASSES.get(noun.lower())
        if kind is None or not (noun.islower() or m.start() == 0):
            continue
        end = _list_end(sentence, m.end())
        text = sentence[m.end() : end].rstrip(" .,")
        if text:
            found.append((m.end(), m.end() + len(text), kind))
    return tuple(found)


def _list_end(sentence: str, start: int) -> int:
    """Where a list of examples that starts at ``start`` ends (:func:`_listed`)."""
    end, depth = len(sentence), 0
    for i in range(start, len(sentence)):
        depth += (sentence[i] == "(") - (sentence[i] == ")")
        if depth < 0 or (depth == 0 and sentence[i] in ";:"):
            end = i
            break
    item_start, words, last = start, 0, start
    for token, at, stop in tokens(sentence[start:end]):
        low = token.lower()
        if low in _LIST_STOP:
            return start + at
        joins = low in ("and", "or")
        if joins or "," in sentence[last : start + at]:
            item_start, words = start + at, 0
        words += not joins
        if words > _LIST_ITEM_WORDS:
            return item_start
        last = start + stop
    return end


#: A capitalised word at least this frequent in English (wordfreq's Zipf scale) is a word,
#: not a name ("Section", "Table").
_COMMON_ZIPF = 3.0


def _generic_object(window: str) -> bool:
    """Whether what a sentence proposes is only a generic noun: "a new framework", "results"."""
    words = [t for t, _, _ in tokens(window) if t.lower() not in STOP_WORDS]
    return not words or head(words[-1]) in GENERIC_NOUNS | KIND_NOUNS


def _means_window(sentence: str, start: int) -> tuple[int, int] | None:
    """The phrase after "via"/"using" that says how a generic proposal works, in its clause."""
    end = _CLAUSE_END.search(sentence, start)
    means = _MEANS.search(sentence, start, end.start() if end else len(sentence))
    if means is None:
        return None
    return (means.end(), _window_end(sentence, means.end()))


def cue_of(phrase: str) -> Kind | None:
    h = head(phrase)
    last = phrase.split()[-1]
    if h in GENERIC_NOUNS and h not in METHOD_HEADS | PROBLEM_HEADS:
        return None
    if h in PROBLEM_HEADS:
        return Kind.PROBLEM
    if h in METHOD_HEADS or any(looks_like_name(w) for w in phrase.split()):
        return Kind.METHOD
    if "-" in last and head(last.split("-")[-1]) in METHOD_HEADS:
        return Kind.METHOD
    return None


def introduced_name(sentence: str, text: str) -> bool:
    """Whether the sentence introduces ``text`` by name: "we propose Curio, ..."."""
    return any(m.group(1) == text for m in _NAME_SLOT.finditer(sentence))


def _window_end(sentence: str, start: int, naming: bool = False) -> int:
    """End of what a propose verb introduces: the name and its appositive, not the rest.

    In "we propose Curio, an intrinsic reward based on the prediction error of a
    dynamics model", Curio and "intrinsic reward" are proposed, the model is not.
    A naming verb introduces only the name, up to the next comma or verb
    ("which we name Guanaco, outperforms ... models").
    """
    ends = [len(sentence)]
    if stop := _WINDOW_STOP.search(sentence, start):
        ends.append(stop.start())
    if naming and (comma := sentence.find(",", start)) >= 0:
        ends.append(comma)
    if naming:
        verb = next((s for t, s, _ in tokens(sentence[start:]) if t.lower() in VERBS), None)
        if verb is not None:
            ends.append(start + verb)
    return min(ends)


def compared_only(phrase: str, sentences: list[str]) -> bool:
    """Whether every time the text writes ``phrase`` it is what the paper compares against.

    Of the links a reader judged (``bench/reader_labels``: 300 ICML 2024 abstracts
    and the seeds), few found only there were right (docs/explanation/measuring.md).

    >>> compared_only("beam search", ["Our decoder outperforms beam search on all tasks."])
    True
    >>> compared_only("beam search", ["Beam search is common.", "We beat beam search."])
    False
    >>> compared_only("federated learning", ["It outperforms SGD on federated learning."])
    False
    >>> compared_only("RRT", ["It beats the classic planners (e.g., A* and RRT)."])
    True
    >>> compared_only("Kronecker factoring", ["In contrast to Kronecker factoring, ours is exact."])
    True
    """
    found = _written_at(phrase, sentences)
    return bool(found) and all(_compared_at(s[:start]) for s, start in found)


def _written_at(phrase: str, sentences: list[str]) -> list[tuple[str, int]]:
    """Each sentence that writes ``phrase`` as a whole phrase, with where it starts there."""
    pattern = written(phrase)
    return [(s, m.start()) for s in sentences for m in pattern.finditer(s)]


def _compared_at(before: str) -> bool:
    cue = _COMPARED.search(before) or _COMPARED_EXAMPLES.search(before)
    return cue is not None and not _GAP_BREAK.search(cue.group("gap"))


def prior_only(phrase: str, sentences: list[str]) -> bool:
    """Whether every sentence that writes ``phrase`` is about prior work ("Existing methods
    rely on X"): what others did, so not a method of this paper (its problem may be).

    >>> prior_only("random masking", ["However, current approaches rely on random masking."])
    True
    >>> prior_only("random masking", ["Existing methods use random masking.",
    ...                               "We improve random masking."])
    False
    >>> prior_only("crop coefficients", ["Existing methods and we use crop coefficients."])
    False
    >>> prior_only("chunk attention", ["Existing methods fail, whereas ours uses chunk attention."])
    False
    >>> prior_only("federated learning", ["Existing federated learning methods suffer from drift."])
    True
    """
    found = _written_at(phrase, sentences)
    return bool(found) and all(_prior_at(s, start) for s, start in found)


def _prior_at(sentence: str, start: int) -> bool:
    """Whether a phrase at ``start`` is in what the sentence says of prior work: its subject
    ("existing federated learning methods": the field, not a method of the paper) or what
    follows, up to where the sentence turns to the paper's own."""
    subject = _PRIOR_WORK.match(sentence, len(sentence) - len(sentence.lstrip()))
    return subject is not None and not _OWN_WORK.search(sentence, subject.end(), start)
