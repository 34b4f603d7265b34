"""Non-projectivity and transition-system coverage against brute-force definitions."""
import random
import pytest
from conllu_samples import attardi_exhaustive
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_dynoracle.coverage import COVERAGE_CHECKS, attardi_covers, register_coverage, treebank_stats
from spacy_dynoracle.trees import is_projective, nonprojective_dependents


def random_forest(r: random.Random, n: int, roots: int = 1):
    """Random heads (1-based words, 0 = root): `roots` words hang from 0, the rest from earlier words of a random order."""
    order = list(range(1, n + 1))
    r.shuffle(order)
    heads = [0] * (n + 1)
    for k, word in enumerate(order):
        heads[word] = 0 if k < roots else r.choice(order[:k])
    return heads[1:]


trees = st.builds(
    lambda seed, n, roots: random_forest(random.Random(seed), n, min(roots, n)),
    st.integers(0, 2**32), st.integers(1, 9), st.integers(1, 3),
)


def descends(heads, k, h):
    """Brute force: walk up from k."""
    while k != 0:
        if k == h:
            return True
        k = heads[k - 1]
    return h == 0


def brute_force_nonprojective(heads):
    out = []
    for d, h in enumerate(heads, 1):
        low, high = sorted((h, d))
        if any(not descends(heads, k, h) for k in range(low + 1, high)):
            out.append(d)
    return out


@settings(max_examples=300, deadline=None, database=None)
@given(trees)
def test_nonprojective_arcs_match_the_definition(heads):
    assert nonprojective_dependents(heads) == brute_force_nonprojective(heads)


@settings(max_examples=300, deadline=None, database=None)
@given(trees)
def test_attardi_greedy_matches_exhaustive_search(heads):
    for degree in (1, 2, 3):
        assert attardi_covers(heads, degree) == attardi_exhaustive(tuple(heads), degree), degree
    # Degree 1 is arc-standard: exactly the projective trees.
    assert attardi_covers(heads, 1) == is_projective(heads)


def test_known_trees():
    # "A hearing is scheduled on the issue today ." : hearing -> issue crosses "is scheduled".
    hearing = [2, 4, 4, 0, 7, 7, 2, 4, 4]
    assert nonprojective_dependents(hearing) == [7]
    assert not is_projective(hearing)
    assert attardi_covers(hearing, 2) and not attardi_covers(hearing, 1)
    # Root arcs are projective even over other sentences' words (root 0 left of word 1).
    assert nonprojective_dependents([0, 1, 0, 3]) == []
    # But an arc over a word hanging from the root is not.
    assert nonprojective_dependents([0, 0, 1]) == [3]
    assert COVERAGE_CHECKS["swap"](hearing)


def test_attardi_degree_needed_grows_with_distance():
    # 1 -> 5 skips 2, 3, 4, which wait on the stack for their head 7 (the root, at the
    # end): only LA/RA reaching 4 items down links 1 and 5.
    heads = [7, 7, 7, 7, 1, 5, 0]
    assert nonprojective_dependents(heads) == [5]
    coverable = [attardi_covers(heads, d) for d in (1, 2, 3, 4)]
    assert coverable == [attardi_exhaustive(tuple(heads), d) for d in (1, 2, 3, 4)]
    assert coverable == [False, False, False, True]


def test_cycles_and_bad_heads_are_rejected():
    with pytest.raises(ValueError, match="cycle"):
        nonprojective_dependents([2, 1])
    with pytest.raises(ValueError, match="out of range"):
        nonprojective_dependents([0, 5])


def test_registry_accepts_new_systems(tmp_path):
    from conllu_samples import NONPROJ, write

    from spacy_dynoracle.conllu_io import read_conllu

    @register_coverage("test_never")
    def never(heads):
        return False

    try:
        stats = treebank_stats(read_conllu(write(tmp_path, NONPROJ)))
        assert stats["coverage"]["test_never"] == {"sentences": 0, "pct": 0.0}
        assert stats["coverage"]["arc_eager"] == {"sentences": 1, "pct": 100 / 3}
        assert stats["coverage"]["swap"]["sentences"] == 3
        assert (stats["sentences"], stats["words"], stats["tokens"]) == (3, 22, 22)
        assert (stats["nonproj_sentences"], stats["nonproj_arcs"]) == (2, 3)
    finally:
        del COVERAGE_CHECKS["test_never"]
    with pytest.raises(ValueError, match="unknown systems"):
        treebank_stats([], ["nope"])
