"""Easy-first (issue 22, part 1): its state, moves and oracles through the Simulator.

Exactness of the dynamic oracle against the brute force is in test_oracles.py
(ORACLE_CASES "easy_first", "easy_first-dp"; `-m slow` for the 6,000 states); here: the
moves, the static oracle, what the arc-decomposition formula gives on non-projective gold
(docs/specs/arc_eager_hybrid_easyfirst.md §9) and the negative controls.
"""
import random

import pytest

from bruteforce import (
    BruteForce, check_costs, is_projective, random_forest, random_projective_tree, random_state,
)
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


def sentences_gold(rng, sizes, kinds=("projective", "nonprojective")):
    """Gold of contiguous sentences of the given sizes, each projective or not at random;
    returns the heads and the sentences as word ranges."""
    heads, spans = [], []
    for size in sizes:
        spans.append(range(len(heads), len(heads) + size))
        heads += [h + len(heads) for h in random_forest(size, rng, rng.choice(kinds))]
    return heads, spans


def masked(gold, part):
    """The gold of the words in part; the others' heads unknown (the brute force counts no
    loss on them)."""
    return [h if i in part else -1 for i, h in enumerate(gold)]


@pytest.mark.parametrize("seed,n_golds", [(0, 150), pytest.param(1, 1500, marks=pytest.mark.slow)])
def test_optimal_completions_decompose_at_gold_sentences(seed, n_golds):
    """The cut the oracle makes (easy_first_oracle.pyx, ef_dynamic_costs), by exhaustive
    search: in every random reachable state of multi-sentence gold (2-3 sentences, each
    projective or not, n <= 7), the best reachable loss is the sum over the gold sentences
    S of the best reachable loss counted on S's words alone (gold elsewhere unknown), i.e.
    one completion is optimal for every sentence at once; also where a built arc crosses a
    sentence boundary (counted: the argument does not need the built arcs). Negative
    control: cut a non-projective sentence in two where a gold arc crosses the cut, and the
    same sum falls below the best loss in some states (it can only be <=: a sum of minima)."""
    rng = random.Random(seed)
    states = crossing = controls = caught = 0
    for _ in range(n_golds):
        n = rng.randint(3, 7)
        k = rng.choice([2, 2, 3]) if n >= 5 else 2
        cuts = sorted(rng.sample(range(1, n), k - 1))
        gold, spans = sentences_gold(rng, [b - a for a, b in zip([0] + cuts, cuts + [n])])
        sentence = {i: s for s, span in enumerate(spans) for i in span}
        whole = BruteForce(gold)
        parts = [BruteForce(masked(gold, set(span))) for span in spans]
        # the wrong cut: inside a sentence, under a gold arc between two of its words
        wrong = None
        for span in spans:
            arcs = [(min(h, d), max(h, d)) for d, h in enumerate(gold) if d in span and h != d]
            if not is_projective([h - span[0] for h in gold[span[0]:span[-1] + 1]]):
                a, b = rng.choice(arcs)
                at = rng.randint(a + 1, b)        # words a..at-1 | at..b: the arc crosses it
                wrong = [BruteForce(masked(gold, {i for i in range(n) if i < at and sentence[i] == sentence[a]} | {i for i in range(n) if sentence[i] != sentence[a]})),
                         BruteForce(masked(gold, {i for i in range(n) if i >= at and sentence[i] == sentence[a]}))]
                break
        start = Simulator("easy_first", n)
        for sim in [start] + [random_state(start, gold, rng) for _ in range(6)]:
            if sim.is_final():
                continue
            best = whole.minloss(sim)
            assert best == sum(p.minloss(sim) for p in parts), (gold, spans, sim)
            states += 1
            heads = sim.heads()
            crossing += any(h >= 0 and sentence[h] != sentence[d] for d, h in enumerate(heads))
            if wrong is not None:
                split = sum(p.minloss(sim) for p in wrong)
                assert split <= best
                controls += 1
                caught += split < best
    print(f"{states} states, {crossing} with a built arc across a gold sentence boundary; "
          f"negative control: the wrong cut caught in {caught} of {controls}")
    assert crossing > states // 10
    assert caught > controls // 50           # 3 to 8% of the states, by the sampling


def long_gold(rng, max_sents=5, max_len=14):
    """Docs beyond the brute force's reach: 1-5 sentences of 1-14 words, each projective or
    not, a third of the Docs with 20% of the heads unknown."""
    heads, _ = sentences_gold(rng, [rng.randint(1, max_len) for _ in range(rng.randint(1, max_sents))])
    if rng.random() < 1 / 3:
        heads = [-1 if rng.random() < 0.2 else h for h in heads]
    return heads


@pytest.mark.parametrize("seed,n_docs", [(0, 150), pytest.param(1, 1500, marks=pytest.mark.slow)])
def test_cut_oracle_equals_the_whole_list_dp(seed, n_docs):
    """The oracle cut at gold sentences (the formula on complete projective ones, the DP on
    the others; and with projective_formula=False the DP on each) gives the costs of the DP
    over the whole pending list (exact by the brute force, test_oracles.py) on Docs of up
    to 70 words, in random reachable states; and its DPs do less work (cubed sizes)."""
    from spacy_dynoracle import load_compiled

    table_cls = load_compiled("easy_first_oracle").EasyFirstGoldTable
    rng = random.Random(seed)
    states = dp_states = cut_cells = whole_cells = 0
    for _ in range(n_docs):
        gold = long_gold(rng)
        n = len(gold)
        table = table_cls(gold)
        sim = Simulator("easy_first", n)
        dp = Simulator("easy_first", n, projective_formula=False)
        for _ in range(3):
            sim = random_state(sim, gold, rng, max_steps=n // 2 + 1)
            if sim.is_final():
                break
            dp.state = sim.state.copy()
            reference = table.whole_list_costs(sim.stack())
            expected = {a: reference[sim.moves.action_id(a)] for a in sim.actions()}
            sim.moves.reset_oracle_stats()
            assert sim.costs(gold) == expected, (gold, sim)
            assert dp.costs(gold) == expected, (gold, sim)
            stats = sim.moves.oracle_stats()
            states += 1
            dp_states += stats["dp_states"]
            cut_cells += dp.moves.oracle_stats()["dp_cells"]
            whole_cells += (len(sim.stack()) + 1) ** 3
            dp.moves.reset_oracle_stats()
    print(f"{states} states, {dp_states} ran the DP with the formula on; DP cells (sum of "
          f"the cubed list sizes) {cut_cells} cut per sentence, {whole_cells} over the whole list")
    assert states > 2 * n_docs
    assert 0 < dp_states < states
    assert cut_cells < whole_cells


def test_gold_blocks_are_the_sentences():
    """The gold table's blocks: the gold sentences of complete gold, each flagged for the
    formula iff its gold is projective (its root arc included); a block with an unknown
    head never takes the formula."""
    from spacy_dynoracle import load_compiled

    table_cls = load_compiled("easy_first_oracle").EasyFirstGoldTable
    rng = random.Random(13)
    for _ in range(200):
        gold, spans = sentences_gold(rng, [rng.randint(1, 8) for _ in range(rng.randint(1, 4))])
        blocks = table_cls(gold).blocks
        assert [(a, b) for a, b, _ in blocks] == [(s[0], s[-1] + 1) for s in spans], gold
        for (a, b, formula) in blocks:
            assert formula == is_projective([h - a for h in gold[a:b]]), (gold, a, b)
        partial = [-1 if rng.random() < 0.2 else h for h in gold]
        for (a, b, formula) in table_cls(partial).blocks:
            assert not formula or -1 not in partial[a:b], (partial, a, b)


def test_dynamic_oracle_exact_with_the_gold_sentences_preset():
    """The cut oracle assumes every projective tree over the pending list is a completion;
    with the gold sentence boundaries preset (a Doc read with its sentences fixed: every
    word a start or not), the moves allow only one root per sentence and no arc across one.
    The costs stay exact there, by the brute force, in random reachable states of 2-3
    sentences, n <= 7 (why: in a best tree with several roots in a sentence, every root but
    the gold one can hang on a neighbouring root without losing a gold arc)."""
    rng = random.Random(5)
    states = 0
    for _ in range(100):
        n = rng.randint(3, 7)
        k = 2 if n < 5 else rng.choice([2, 3])
        cuts = sorted(rng.sample(range(1, n), k - 1))
        gold, spans = sentences_gold(rng, [b - a for a, b in zip([0] + cuts, cuts + [n])])
        firsts = {span[0] for span in spans}
        start = Simulator("easy_first", n, sent_starts=[1 if i in firsts else -1 for i in range(n)])
        bf = BruteForce(gold)
        for sim in [start] + [random_state(start, gold, rng) for _ in range(4)]:
            if not sim.is_final():
                assert not check_costs(sim, bf)
                states += 1
    assert states > 200
