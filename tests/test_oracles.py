"""Every oracle of every system against the shared brute-force reference (bruteforce.py).

Each entry of ORACLE_CASES names a system, its options, and the gold trees on which its
dynamic oracle must be exact; the same code checks all of them. Default run: a few hundred
states per case; `-m slow`: the thousands the issues ask for.
"""
import random

import pytest

from bruteforce import BruteForce, check_costs, is_projective, random_forest, random_state, static_rebuilds
from spacy_dynoracle.testing import Simulator

# name, system, options, gold kinds on which the dynamic oracle is exact
ORACLE_CASES = [
    ("arc_hybrid", "arc_hybrid", {}, ("projective", "multi-projective")),
]
# name, system, options, gold kinds the static oracle must rebuild
STATIC_CASES = [
    ("arc_hybrid", "arc_hybrid", {}, ("projective", "multi-projective")),
]


def gold_tree(kind, n, rng):
    if kind == "multi-projective":
        while True:
            heads = random_forest(n, rng, "multi")
            if is_projective(heads):
                return heads
    return random_forest(n, rng, kind)


def run_exactness(system, options, kinds, n_states, seed, labels=False):
    rng = random.Random(seed)
    checked, failures = 0, []
    while checked < n_states:
        kind = kinds[checked % len(kinds)]
        n = rng.randint(1, 5 if labels else 7)
        gold = gold_tree(kind, n, rng)
        gold_labels = [rng.choice("ab") for _ in gold] if labels else None
        bf = BruteForce(gold, gold_labels)
        start = Simulator(system, n, labels=("a", "b") if labels else (), **options)
        for _ in range(8):
            sim = random_state(start, gold, rng)
            if sim.is_final():
                continue
            errors = check_costs(sim, bf)
            checked += 1
            if errors:
                failures.append("\n  ".join(errors))
    return checked, failures


@pytest.mark.parametrize("name,system,options,kinds", ORACLE_CASES, ids=[c[0] for c in ORACLE_CASES])
def test_dynamic_oracle_exact(name, system, options, kinds):
    checked, failures = run_exactness(system, options, kinds, n_states=300, seed=1)
    assert not failures, f"{len(failures)}/{checked} states wrong:\n" + "\n".join(failures[:5])


@pytest.mark.parametrize("name,system,options,kinds", ORACLE_CASES, ids=[c[0] for c in ORACLE_CASES])
def test_dynamic_oracle_exact_labelled(name, system, options, kinds):
    """Labelled costs as set_costs gives them to training, against labelled search."""
    checked, failures = run_exactness(system, options, kinds, n_states=100, seed=2, labels=True)
    assert not failures, f"{len(failures)}/{checked} states wrong:\n" + "\n".join(failures[:5])


@pytest.mark.slow
@pytest.mark.parametrize("name,system,options,kinds", ORACLE_CASES, ids=[c[0] for c in ORACLE_CASES])
def test_dynamic_oracle_exact_many(name, system, options, kinds):
    checked, failures = run_exactness(system, options, kinds, n_states=6000, seed=3)
    print(f"{name}: {checked} states checked, {len(failures)} wrong")
    assert checked >= 5000
    assert not failures, f"{len(failures)}/{checked} states wrong:\n" + "\n".join(failures[:5])


@pytest.mark.parametrize("name,system,options,kinds", STATIC_CASES, ids=[c[0] for c in STATIC_CASES])
def test_static_oracle_rebuilds_gold(name, system, options, kinds):
    rng = random.Random(4)
    for i in range(400):
        kind = kinds[i % len(kinds)]
        gold = gold_tree(kind, rng.randint(1, 12), rng)
        assert static_rebuilds(system, gold, **options) == gold


def test_bruteforce_catches_a_wrong_cost():
    """The reference must be able to fail: a cost off by one is reported."""
    gold = [1, 1, 1]
    sim = Simulator("arc_hybrid", 3).apply("SHIFT")
    bf = BruteForce(gold)

    class Off:
        def __getattr__(self, name):
            return getattr(sim, name)

        def costs(self, g):
            return {a: c + (a == "SHIFT") for a, c in sim.costs(g).items()}

    assert check_costs(Off(), bf)
