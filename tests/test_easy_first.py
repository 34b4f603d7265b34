"""Easy-first (issue 22, part 1): its state, moves and oracles through the Simulator.

Exactness of the dynamic oracle against the brute force is in test_oracles.py
(ORACLE_CASES "easy_first", "easy_first-dp"; `-m slow` for the 6,000 states); here: the
moves, the static oracle, what the arc-decomposition formula gives on non-projective gold
(docs/specs/arc_eager_hybrid_easyfirst.md §9) and the negative controls.
"""
import random

import pytest

from bruteforce import BruteForce, check_costs, is_projective, random_projective_tree, random_state
from spacy_dynoracle.testing import ListSimulator, Simulator
from test_oracles import gold_tree, measure_inexact, run_exactness


def test_moves_follow_the_spec():
    """§1.3: the initial list is [ROOT, w0..w(n-1)]; RIGHT@i attaches the right item of
    pair i to the left one, LEFT@i the left one to the right one, ROOT makes the first
    pending word a root (it points to itself); n actions end in the final state."""
    sim = Simulator("easy_first", 4)
    assert isinstance(sim, ListSimulator)
    assert sim.stack() == [0, 1, 2, 3] and sim.buffer() == []
    assert sim.actions() == ["ROOT", "RIGHT@1", "LEFT@1", "RIGHT@2", "LEFT@2", "RIGHT@3", "LEFT@3"]
    sim.apply("RIGHT@2")                 # w1 -> w2
    assert sim.heads() == [-1, -1, 1, -1] and sim.stack() == [0, 1, 3]
    sim.apply("LEFT@1")                  # pair 1 is (w0, w1): w1 -> w0
    assert sim.heads() == [1, -1, 1, -1] and sim.stack() == [1, 3]
    sim.apply("LEFT@1")                  # pair 1 is (w1, w3): w3 -> w1
    assert sim.stack() == [3] and sim.heads() == [1, 3, 1, -1]
    assert sim.actions() == ["ROOT"]
    sim.apply("ROOT")
    assert sim.is_final() and sim.heads() == [1, 3, 1, 3]
    assert sim.labels() == ["dep", "dep", "dep", "ROOT"]


def test_state_and_gold_show_their_arcs_through_one_view():
    """The state's parse and the gold tree reach Python through system_base.WordArcs (one
    `heads`/`labels` for both): a root points to itself, -1 = none, labels are ids (0 = none)."""
    from spacy_dynoracle import load_compiled

    base = load_compiled("system_base")
    gold = base.DynGold([1, 1, -1], [7, 8, None])
    assert isinstance(gold, base.WordArcs) and (gold.heads, gold.labels) == ([1, 1, -1], [7, 8, 0])
    sim = Simulator("easy_first", 3)
    assert isinstance(sim.state, base.WordArcs)
    sim.apply("LEFT@1")                  # pair 1 is (w0, w1): w1 -> w0, label "dep"
    dep = sim.vocab.strings["dep"]
    assert (sim.state.heads, sim.state.labels) == ([1, -1, -1], [dep, 0, 0])


def test_bad_actions_and_options_are_named():
    sim = Simulator("easy_first", 3)
    with pytest.raises(ValueError, match="RIGHT@i"):
        sim.apply("SHIFT")
    with pytest.raises(ValueError, match="not valid"):
        sim.apply("LEFT@3")
    with pytest.raises(ValueError, match="goldberg-nivre"):
        Simulator("easy_first", 3, oracle="exact")
    with pytest.raises(ValueError, match="projective_formula"):
        Simulator("easy_first", 3, degree=2)


def test_random_parses_are_projective_forests():
    """Any sequence of valid actions builds n arcs, a projective forest under the virtual
    root (each root's words contiguous), in exactly n actions."""
    rng = random.Random(1)
    for _ in range(300):
        n = rng.randint(1, 12)
        sim = Simulator("easy_first", n)
        for _ in range(n):
            sim.apply(rng.choice(sim.actions()))
        assert sim.is_final()
        assert is_projective(sim.heads()), sim.heads()


def test_formula_is_used_exactly_on_complete_projective_gold():
    """The gold table flags where §5.3's formula is exact: complete, projective gold
    (several projective sentences included); anything else goes through the DP."""
    from spacy_dynoracle import load_compiled

    table = load_compiled("easy_first_oracle").EasyFirstGoldTable
    rng = random.Random(2)
    for _ in range(300):
        gold = gold_tree(rng.choice(["projective", "nonprojective", "multi", "partial"]),
                         rng.randint(1, 9), rng)
        complete = -1 not in gold
        assert table(gold).formula_exact == (complete and is_projective(gold)), gold


@pytest.mark.parametrize("kind", ["projective", "multi-projective"])
def test_static_oracle_rebuilds_gold_on_every_zero_cost_path(kind):
    """§6: the static oracle is the non-deterministic oracle of GN13's baseline. From the
    initial state, any path of its zero-cost actions rebuilds the gold tree in n actions, and
    on that path its zero-cost set equals the dynamic oracle's (both are o_n, §2); its
    deterministic choice (static_move: the first zero-cost action) rebuilds it too."""
    rng = random.Random(3)
    for _ in range(200):
        gold = gold_tree(kind, rng.randint(1, 10), rng)
        n = len(gold)
        static = Simulator("easy_first", n, oracle="static")
        dynamic = Simulator("easy_first", n)
        for _ in range(n):
            zero = sorted(a for a, c in static.costs(gold).items() if c == 0)
            assert zero == sorted(a for a, c in dynamic.costs(gold).items() if c == 0)
            action = rng.choice(zero)
            static.apply(action)
            dynamic.apply(action)
        assert static.is_final() and static.heads() == gold
        first = Simulator("easy_first", n, oracle="static")
        while not first.is_final():
            zero = [a for a, c in first.costs(gold).items() if c == 0]
            assert first.static_move(gold) == zero[0]
            first.apply(zero[0])
        assert first.heads() == gold


def test_static_oracle_is_gold_reachable_only():
    """Off the gold path the static oracle knows nothing: after a wrong arc it may have no
    zero-cost action at all, where the dynamic one always has."""
    gold = [1, 1, 1]                       # w1 is the root of w0 and w2
    static = Simulator("easy_first", 3, oracle="static").apply("LEFT@2")  # w1 -> w2: wrong
    dynamic = Simulator("easy_first", 3).apply("LEFT@2")
    assert min(dynamic.costs(gold).values()) == 0
    assert min(static.costs(gold).values()) == 1


def test_formula_on_nonprojective_gold_is_sound_but_inexact():
    """§9: on non-projective gold the arc-decomposition formula never under-estimates and a
    move it calls free is optimal, but it differs from the exact costs, already at the
    initial state of the spec's example g = {1<-0, 2<-1, 3<-1, 4<-2} (every action has a
    positive formula cost, yet zero-cost actions exist)."""
    gold = [0, 0, 0, 1]                    # 0-based words: w0 root, w1, w2 <- w0, w3 <- w1
    assert not is_projective(gold)
    formula = Simulator("easy_first", 4, oracle="goldberg-nivre").costs(gold)
    exact = Simulator("easy_first", 4).costs(gold)
    assert min(formula.values()) > 0 and min(exact.values()) == 0
    bf = BruteForce(gold)
    assert not check_costs(Simulator("easy_first", 4), bf)
    states, cost_diff, zero_diff, violations = measure_inexact(
        "easy_first", {"oracle": "goldberg-nivre"}, ("nonprojective",), n_states=200, seed=9)
    assert not violations and zero_diff > 0


def test_negative_control_the_check_catches_wrong_costs():
    """The brute-force check must be able to fail on easy-first: (1) the formula, used
    against the spec on non-projective gold, is reported wrong in many states; (2) a
    deliberately wrong cost (the dependents term of §5.3 dropped for LEFT actions) is
    reported on projective gold."""
    checked, failures = run_exactness("easy_first", {"oracle": "goldberg-nivre"},
                                      ("nonprojective",), n_states=200, seed=10)
    assert len(failures) > 20, (checked, len(failures))

    class DropLeftDependents:
        """easy_first's costs with |D(d) ∩ λ| left out of every LEFT action's cost."""

        def __init__(self, sim):
            self.sim = sim

        def __getattr__(self, name):
            return getattr(self.sim, name)

        def costs(self, gold):
            costs = self.sim.costs(gold)
            pending = set(self.sim.stack())
            for a in costs:
                if a.startswith("LEFT@"):
                    i = int(a[5:])
                    d = self.sim.stack()[i - 1]
                    costs[a] -= sum(1 for k, h in enumerate(gold) if h == d and k != d and k in pending)
            return costs

    rng = random.Random(11)
    wrong = 0
    for _ in range(120):
        gold = gold_tree("projective", rng.randint(3, 7), rng)
        bf = BruteForce(gold)
        sim = random_state(Simulator("easy_first", len(gold)), gold, rng)
        if not sim.is_final():
            wrong += bool(check_costs(DropLeftDependents(sim), bf))
            assert not check_costs(sim, bf)
    assert wrong >= 3, wrong         # 3 of the first 60 states already


def test_dp_agrees_with_the_formula_on_projective_gold():
    """The two exact computations of the dynamic oracle agree wherever the formula is exact
    (random reachable states of longer projective and multi-sentence gold, beyond the brute
    force's n <= 7)."""
    rng = random.Random(12)
    states = 0
    for _ in range(150):
        gold = []                          # 1-3 projective sentences of 2-12 words
        for _ in range(rng.choice([1, 1, 2, 3])):
            gold += [h + len(gold) for h in random_projective_tree(rng.randint(2, 12), rng)]
        n = len(gold)
        sim = random_state(Simulator("easy_first", n), gold, rng, max_steps=n)   # < n steps
        dp = Simulator("easy_first", n, projective_formula=False)
        dp.state = sim.state.copy()
        assert dp.costs(gold) == sim.costs(gold), (gold, sim)
        states += 1
    assert states == 150
