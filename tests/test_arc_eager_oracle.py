"""The continuation-DP module of issue 7 (arc_eager_oracle.pyx) through the shared
brute-force reference: its best reachable score, its cuts, and a walk along zero-cost moves.
The per-state exactness of both systems is in test_oracles.py."""
import random

import pytest

from bruteforce import BruteForce, is_projective, oracle_walk, random_forest
from spacy_dynoracle import load_compiled
from spacy_dynoracle.testing import Simulator


def spec_gold(heads):
    """Package heads (root points to itself) -> spec numbering (words 1..n, root 0)."""
    return [None] + [0 if h == d else h + 1 for d, h in enumerate(heads)]


@pytest.mark.parametrize("kind", ["projective", "nonprojective", "multi"])
def test_initial_score_is_the_best_reachable_tree(kind):
    """V0 at the start = n - minloss of the initial state, for both systems (they reach the
    same trees), and = n exactly when the gold is projective."""
    table_cls = load_compiled("arc_eager_oracle").NPOracleTable
    rng = random.Random(11)
    for _ in range(15):
        n = rng.randint(1, 6)
        gold = random_forest(n, rng, kind)
        score = table_cls(spec_gold(gold)).initial_score
        for system in ("arc_eager", "arc_hybrid"):
            assert score == n - BruteForce(gold).minloss(Simulator(system, n)), (system, gold)
        assert (score == n) == is_projective(gold), gold


def test_sentence_boundaries_are_cuts():
    table_cls = load_compiled("arc_eager_oracle").NPOracleTable
    rng = random.Random(12)
    for _ in range(100):
        sizes = [rng.randint(1, 9) for _ in range(rng.randint(1, 4))]
        heads, starts = [], []
        for size in sizes:
            off = len(heads)
            starts.append(off + 1)
            heads += [h + off for h in random_forest(size, rng, rng.choice(["projective", "nonprojective"]))]
        cuts = table_cls(spec_gold(heads)).cuts
        assert set(starts) | {len(heads) + 1} <= set(cuts)
        # a cut inside a sentence needs no word-to-word arc across it
        for c in cuts:
            for d, h in enumerate(heads):
                if h != d:
                    assert not (min(h, d) + 1 < c <= max(h, d) + 1), (heads, c)


@pytest.mark.parametrize("system", ["arc_eager", "arc_hybrid"])
def test_oracle_walk_reaches_the_best_tree(system):
    """Following the exact oracle's zero-cost moves (p_random=0) builds a tree with the
    best reachable score, on non-projective gold."""
    table_cls = load_compiled("arc_eager_oracle").NPOracleTable
    rng = random.Random(13)
    for i in range(30):
        n = rng.randint(3, 12)
        gold = random_forest(n, rng, "nonprojective")
        cost_sum, loss = oracle_walk(system, gold, rng, p_random=0.0)
        assert cost_sum == 0
        assert n - loss == table_cls(spec_gold(gold)).initial_score, gold
