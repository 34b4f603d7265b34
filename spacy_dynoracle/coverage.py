"""Which gold trees each transition system can build, and treebank statistics.

`COVERAGE_CHECKS` maps a system name to a pure-Python predicate over a head array
(``heads[i]`` = head of word i+1, 0 = root; see `trees.py`). A new transition system adds
its own with::

    @register_coverage("my_system")
    def my_system_covers(heads): ...

The `stats` command reports the share of sentences each registered check accepts.
"""
from __future__ import annotations

from functools import partial
from typing import Callable, Dict, Iterable, List, Optional, Sequence

from .trees import is_projective, nonprojective_dependents

CoverageCheck = Callable[[Sequence[int]], bool]
COVERAGE_CHECKS: Dict[str, CoverageCheck] = {}


def register_coverage(name: str) -> Callable[[CoverageCheck], CoverageCheck]:
    """Decorator: register a coverage predicate under a system name."""

    def register(check: CoverageCheck) -> CoverageCheck:
        COVERAGE_CHECKS[name] = check
        return check

    return register


def attardi_covers(heads: Sequence[int], degree: int) -> bool:
    """Whether Attardi's system of the given degree can build the tree.

    Stack formulation (Cohen, Gómez-Rodríguez & Satta 2011): SHIFT, and for k <= degree
    LA_k (the stack top takes the item k below it as dependent, which leaves the stack)
    and RA_k (the item k below the top takes the top as dependent; the top is popped).
    Degree 1 is arc-standard. Decided greedily: a word is attached as soon as it has all
    its gold dependents and its gold head is within reach; attaching a complete word
    early only brings other stack items closer, so the greedy choice never loses a tree
    (see ../shared/ud/STATS.md, "Definitions").
    """
    n = len(heads)
    head = [-1, *heads]
    missing = [0] * (n + 1)  # gold dependents not attached yet
    for h in heads:
        missing[h] += 1
    stack = [0]
    for word in range(1, n + 2):
        reduced = True
        while reduced and len(stack) > 1:
            reduced = False
            top = stack[-1]
            for k in range(1, min(degree, len(stack) - 1) + 1):
                below = stack[-1 - k]
                if head[top] == below and missing[top] == 0:  # RA_k
                    stack.pop()
                    missing[below] -= 1
                    reduced = True
                    break
                if head[below] == top and missing[below] == 0:  # LA_k (never the root: head[0] = -1)
                    del stack[-1 - k]
                    missing[top] -= 1
                    reduced = True
                    break
        if word <= n:
            stack.append(word)
    return stack == [0]


for _name in ("arc_standard", "arc_hybrid", "arc_eager"):
    register_coverage(_name)(is_projective)
register_coverage("attardi_d2")(partial(attardi_covers, degree=2))
register_coverage("attardi_d3")(partial(attardi_covers, degree=3))


@register_coverage("swap")
def swap_covers(heads: Sequence[int]) -> bool:
    """Nivre's swap system builds every tree (and forest)."""
    return True


def treebank_stats(sentences: Iterable, systems: Optional[List[str]] = None) -> dict:
    """Sizes, non-projectivity and coverage of parsed `Sentence` objects.

    Returns counts and percentages: sentences, tokens (surface: an MWT counts once),
    words, nonproj_sentences/arcs (+ _pct: sentences over sentences, arcs over words),
    and coverage[system] = {"sentences": covered, "pct": ...} for each registered system
    (or the given ones).
    """
    names = list(COVERAGE_CHECKS) if systems is None else systems
    unknown = [name for name in names if name not in COVERAGE_CHECKS]
    if unknown:
        raise ValueError(f"unknown systems {unknown}; registered: {sorted(COVERAGE_CHECKS)}")
    n_sents = n_tokens = n_words = np_sents = np_arcs = 0
    covered = dict.fromkeys(names, 0)
    for sentence in sentences:
        if not sentence.is_parsed:
            raise ValueError(f"{sentence.path}:{sentence.line}: statistics need parsed sentences")
        heads = sentence.heads
        n_sents += 1
        n_words += len(heads)
        n_tokens += sentence.n_tokens()
        n_np = len(nonprojective_dependents(heads))
        np_arcs += n_np
        np_sents += n_np > 0
        for name in names:
            covered[name] += COVERAGE_CHECKS[name](heads)

    def pct(part: int, whole: int) -> Optional[float]:
        return 100.0 * part / whole if whole else None

    return {
        "sentences": n_sents,
        "tokens": n_tokens,
        "words": n_words,
        "nonproj_sentences": np_sents,
        "nonproj_arcs": np_arcs,
        "nonproj_sentences_pct": pct(np_sents, n_sents),
        "nonproj_arcs_pct": pct(np_arcs, n_words),
        "coverage": {name: {"sentences": covered[name], "pct": pct(covered[name], n_sents)} for name in names},
    }
