"""Attardi's system (issue 4): the spec's regression vectors, the training-mode costs, the
guard, non-covered gold policies, preset sentences and the pipeline. Exactness of the costs
against exhaustive search is in test_oracles.py (the shared brute force)."""
import random

import pytest
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab

from bruteforce import (BruteForce, assert_contiguous_sentences, random_forest, random_state,
                        sample_states, static_sequence)
from spacy_dynoracle import load_compiled
from spacy_dynoracle.testing import Simulator

orc = load_compiled("attardi_oracle")


def node_gold(heads_1n, D=2):
    """OracleGold from node-level gold heads of nodes 1..n (0 = root), as the spec writes them."""
    tokens = [i if h == 0 else h - 1 for i, h in enumerate(heads_1n)]
    return orc.OracleGold(tokens, D, True)


def oracle(D=2, **kw):
    return orc.AttardiOracle(D, **kw)


# ---- docs/specs/attardi.md §3.2.9 and §3.3: regression vectors -----------------------------------
def test_reduction_vector_head_attached():
    g = node_gold([3, 1, 4, 0])
    o = oracle()
    assert o.py_costs(g, [0, 1], 2, want={0, 2}) == {0: 0, 2: 2}    # sh 0, ra_1 2 (paper: 1)
    assert o.py_reduce(g, [0], 2) == [0, 2, 3, 4]                   # β_R = [2,3,4] (paper: [4])
    assert o.py_future_loss(g, [0], 2) == 1                         # L = W(A) + F = 1 + 1


def test_reduction_vector_head_on_stack():
    g = node_gold([3, 0, 5, 1, 0])
    o = oracle()
    assert o.py_reduce(g, [0, 1, 2, 3], 4) == [0, 1, 2, 3, 4, 5]    # β_R = [4,5] (paper: [5])
    assert o.py_future_loss(g, [0, 1, 2, 3], 4) == 1
    # the spec's system (node 0 may head ra_2): sh 0, la 0, ra 1, la2 0, ra2 1 (paper: 1,1,2,0,2)
    assert oracle(root_ra1=False).py_costs(g, [0, 1, 2, 3], 4) == {0: 0, 1: 0, 2: 1, 3: 0, 4: 1}
    # the package's (roots only by ra_1 = ROOT, so sentences stay contiguous): this gold has
    # two interleaved sentences {2} and {1,3,4,5}; after la2, node 5 can no longer reach node 0
    assert o.py_costs(g, [0, 1, 2, 3], 4) == {0: 0, 1: 0, 2: 1, 3: 1, 4: 1}


def test_paper_figure_4():
    g = node_gold([7, 3, 1, 0, 6, 7, 4, 9, 7, 9, 10, 11, 0])
    o = oracle()
    stack, b = [0, 1, 3, 4], 5
    assert o.py_reduce(g, stack, b) == [0, 1, 3, 4, 7, 13]
    assert o.py_future_loss(g, stack, b) == 1
    assert o.py_costs(g, stack, b) == {0: 0, 1: 0, 2: 1, 3: 1, 4: 1}
    assert g.covered


def test_paper_figure_5():
    g = node_gold([2, 0, 2, 5, 2, 2, 8, 6, 10, 5, 2])
    o = oracle()
    assert o.py_reduce(g, [0, 1, 2, 3, 4], 5) == [0, 1, 2, 3, 4, 5, 6, 10, 11]
    assert o.py_future_loss(g, [0, 1, 2, 3, 4], 5) == 1


def test_initial_configuration_and_coverage():
    """docs/specs/attardi.md §3.2.4: every projective tree is covered; the oracle gives 0 at the
    start."""
    rng = random.Random(0)
    from bruteforce import random_projective_tree
    for _ in range(200):
        heads = random_projective_tree(rng.randint(1, 15), rng)
        g = orc.OracleGold(heads, 2, True)
        assert g.covered
        assert oracle().py_future_loss(g, [0], 1) == 0


def test_zero_future_matches_table():
    """docs/specs/attardi.md §3.2.7: zero_future(σ, b) <=> F(σ, b) == 0, on random reachable states
    of any tree (F by the table without reduction, itself exact by the brute-force suite)."""
    rng = random.Random(3)
    for D in (2, 3):
        o = oracle(D, uncovered_mode=0)
        for _ in range(150):
            n = rng.randint(2, 9)
            heads = random_forest(n, rng, rng.choice(["nonprojective", "multi"]))
            g = orc.OracleGold(heads, D, True)
            sim = random_state(Simulator("attardi", n, degree=D), heads, rng)
            stack = [0] + [x + 1 for x in sim.stack()]
            b = (sim.buffer()[0] + 1) if sim.buffer() else n + 1
            full = orc.OracleGold(heads, D, True)
            assert o.py_zero_future(g, stack, b) == (o.py_future_loss(full, stack, b) == 0)


def check_lost_bound_sound(D, n_states, seed):
    """The table's lost-dependents pruning (_lost, docs/systems/attardi.md "Long sentences")
    against the same table without it, on random reachable states of random trees larger
    than the brute force reaches: F of the words before the first cut (py_future_loss) and
    the costs of every legal move with bounds=False (so the tables decide them) must be
    equal, while the pruning does remove combinations (else the check would be empty).
    Returns (states, states whose F the table found above the orphan count)."""
    rng = random.Random(seed)
    kw = dict(budget=10 ** 9, max_m=400, use_bounds=False)
    pruned, plain = oracle(D, **kw), oracle(D, lost_bound=False, **kw)
    with_excess = 0
    for _ in range(n_states):
        n = rng.randint(6, 12)
        heads = random_forest(n, rng, rng.choice(["projective", "nonprojective", "multi"]))
        sim = random_state(Simulator("attardi", n, degree=D), heads, rng, p_oracle=0.3)
        stack = [0] + [x + 1 for x in sim.stack()]
        b = (sim.buffer()[0] + 1) if sim.buffer() else n + 1
        g1, g2 = orc.OracleGold(heads, D, True), orc.OracleGold(heads, D, True)
        f = pruned.py_future_loss(g1, stack, b, whole=False)
        assert f == plain.py_future_loss(g2, stack, b, whole=False), (heads, stack, b)
        with_excess += f > pruned.py_bounds(g1, stack, b)[0]
        want = set(_legal(stack, b, n, D))
        g1, g2 = orc.OracleGold(heads, D, True), orc.OracleGold(heads, D, True)
        assert pruned.py_costs(g1, stack, b, want) == plain.py_costs(g2, stack, b, want), \
            (heads, stack, b)
    assert pruned.stats()["combos"] < plain.stats()["combos"]
    return n_states, with_excess


@pytest.mark.parametrize("D", [2, 3])
def test_lost_bound_matches_unpruned_table(D):
    states, with_excess = check_lost_bound_sound(D, 3000, seed=D)
    print(f"degree {D}: {states} states, {with_excess} with a nonzero excess")
    assert with_excess > 100          # states where the excess (the pruned part) is not 0


# ---- exact_costs=False: exact zero set, lower bounds elsewhere (docs/specs/attardi.md §2.7) ------
def check_lower_bound_mode(D, n_states, seed, paths=None):
    """exact_costs=False, through the Simulator, i.e. the values training then gets: every
    optimal move costs 0, every other one 1 <= cost <= its exact cost (brute force)."""
    rng = random.Random(seed)
    checked = 0

    def new_case(kind):
        n = rng.randint(2, 7)
        gold = random_forest(n, rng, "multi" if kind == "partial" else kind)
        if kind == "partial":
            gold = [-1 if rng.random() < 0.3 else h for h in gold]
        return gold, BruteForce(gold), Simulator("attardi", n, degree=D, exact_costs=False)

    for kind, gold, bf, _, sim in sample_states(
            rng, n_states, ["projective", "nonprojective", "multi", "partial"], new_case, per_gold=5):
        checked += 1
        costs = sim.costs(gold)
        if paths is not None:
            key = (kind, sim.moves.last_oracle_path)
            paths[key] = paths.get(key, 0) + 1
        for a, exact in bf.exact_costs(sim, costs).items():
            c = costs[a]
            assert (c == 0) == (exact == 0), (gold, sim, a, c, exact)
            assert c <= exact, (gold, sim, a, c, exact)
    return checked


@pytest.mark.parametrize("D", [2, 3])
def test_lower_bound_mode_zero_set_exact(D):
    check_lower_bound_mode(D, 150, seed=7)


@pytest.mark.slow
@pytest.mark.parametrize("D", [2, 3])
def test_lower_bound_mode_zero_set_exact_many(D):
    paths = {}
    checked = check_lower_bound_mode(D, 5000, seed=17, paths=paths)
    print(f"attardi{D} exact_costs=False: {checked} states, 0 wrong")
    for (kind, path), count in sorted(paths.items()):
        print(f"  gold {kind:14s} oracle path {path}: {count} states")


def test_training_and_simulator_share_the_cost_mode():
    """The Simulator's costs are the ones set_costs gives training, in either mode."""
    for exact in (True, False):
        sim = Simulator("attardi", 7, exact_costs=exact)
        assert sim.moves.oracle_.exact == exact
        sim.costs([1, 3, 1, 4, 4, 4, 4])
        assert sim.moves.oracle_.exact == exact
    # default ("beam", or null): the cheap mode for the greedy path, exact values for the
    # beam update
    for default in (Simulator("attardi", 3).moves, Simulator("attardi", 3, exact_costs=None).moves):
        assert default.cfg["exact_costs"] in ("beam", None) and not default.oracle_.exact
        with default.beam_update_costs():
            assert default.oracle_.exact
        assert not default.oracle_.exact
    for exact in (True, False):         # as configured, beam or not
        moves = Simulator("attardi", 3, exact_costs=exact).moves
        with moves.beam_update_costs():
            assert moves.oracle_.exact == exact
    for bad in ("yes", 1, 0):
        with pytest.raises(ValueError, match="exact_costs"):
            Simulator("attardi", 3, exact_costs=bad)


# ---- exhaustive node-level check of the oracle and of its [ext] bounds ----------------------
def _node_trees(n):
    """Every gold forest over n words (token heads, a root points to itself)."""
    import itertools
    for hs in itertools.product(range(n + 1), repeat=n):       # node-level heads
        if any(hs[i] == i + 1 for i in range(n)):
            continue
        ok = True
        for i in range(n):
            x, steps = i + 1, 0
            while x != 0 and steps <= n:
                x, steps = hs[x - 1], steps + 1
            ok = ok and x == 0
        if ok:
            yield [i if h == 0 else h - 1 for i, h in enumerate(hs)]


def _node_states(n):
    """Every reachable node-level (stack, b): 0 plus any increasing subset of 1..b-1."""
    import itertools
    for b in range(1, n + 2):
        for r in range(b):
            for rest in itertools.combinations(range(1, b), r):
                if b <= n or rest:
                    yield (0,) + rest, b


def exhaustive_check(n, D, trees=None):
    """Against an independent memoised search over (stack, b) (the package's system: node 0
    never a dependent, nor the head of ra_k for k >= 2): F, exact costs, the costs of
    exact_costs=False, the bounds (|O| <= F <= greedy), and the claim the oracle rests on:
    the greedy completion reaches |O| iff F == |O| (as zero_future for F == 0). Returns the
    number of states and the paths taken."""
    # the system's own guard settings (as training runs them), but no wall-time guard
    opts = Simulator("attardi", 1).moves.options
    guard = dict(budget=opts["budget"], max_m=opts["max_rho"], max_excess=opts["max_excess"],
                 max_ms=0)
    o_ex = oracle(D, exact=True, **guard)
    o_lb = oracle(D, exact=False, **guard)
    o_guard = oracle(D, exact=True, budget=10 ** 9, max_ms=0, max_m=3)   # guards often
    o_lower = oracle(D, exact=True, budget=10 ** 9, max_ms=0)
    o_lower.value_share = 2 ** 31 - 1     # no budget for the exact values of bad moves
    paths = {}
    count = 0
    for heads in (trees if trees is not None else _node_trees(n)):
        nh = [-1] + [0 if h == i else (h + 1 if h >= 0 else -1) for i, h in enumerate(heads)]
        memo = {}

        def F(stack, b):
            if (stack, b) not in memo:
                if len(stack) == 1 and b > n:
                    memo[(stack, b)] = 0
                else:
                    memo[(stack, b)] = min(_delta(nh, stack, b, t) + F(*_succ_t(stack, b, t))
                                           for t in _legal(list(stack), b, n, D))
            return memo[(stack, b)]

        g_ex = orc.OracleGold(heads, D, True)
        g_lb = orc.OracleGold(heads, D, True)
        g_guard = orc.OracleGold(heads, D, True)
        g_lower = orc.OracleGold(heads, D, True)
        clean = min(heads) >= 0
        for stack, b in _node_states(n):
            count += 1
            f = F(stack, b)
            assert o_ex.py_future_loss(g_ex, list(stack), b) == f, (heads, stack, b)
            if clean:
                lo, hi, one_more = o_ex.py_bounds(g_ex, list(stack), b)
                fp = o_ex.py_future_loss(g_ex, list(stack), b, False)   # before the first cut
                assert lo <= fp <= hi and (one_more > 10 ** 5 or one_more >= fp)
                assert (hi == lo) == (fp == lo), (heads, stack, b, lo, fp, hi)
            want = _legal(list(stack), b, n, D)
            exact = {t: _delta(nh, stack, b, t) + F(*_succ_t(stack, b, t)) - f for t in want}
            assert o_ex.py_costs(g_ex, list(stack), b, want=set(want)) == exact, (heads, stack, b)
            paths[o_ex.last_path_name] = paths.get(o_ex.last_path_name, 0) + 1
            lb = o_lb.py_costs(g_lb, list(stack), b, want=set(want))
            assert all((lb[t] == 0) == (exact[t] == 0) and lb[t] <= exact[t] for t in want)
            # the guard's fallback: sound (optimal moves cost 0, others at most their cost)
            gc = o_guard.py_costs(g_guard, list(stack), b, want=set(want))
            gp = o_guard.last_path_name
            if gp == "guard":
                assert all(0 <= gc[t] <= exact[t] for t in want), (heads, stack, b, gc, exact)
            elif gp == "lower":
                assert all((gc[t] == 0) == (exact[t] == 0) and gc[t] <= exact[t] for t in want)
            else:
                assert gc == exact
            paths[f"{gp}(max_rho=3)"] = paths.get(f"{gp}(max_rho=3)", 0) + 1
            # no table for the exact values of suboptimal moves: they stay lower bounds (path
            # "lower": the zero-cost set is still exact)
            lc = o_lower.py_costs(g_lower, list(stack), b, want=set(want))
            lp = o_lower.last_path_name
            if lp == "lower":
                assert all((lc[t] == 0) == (exact[t] == 0) and lc[t] <= exact[t] for t in want)
            elif lp == "guard":
                assert all(0 <= lc[t] <= exact[t] for t in want)
            else:
                assert lc == exact
            paths[f"{lp}(no values)"] = paths.get(f"{lp}(no values)", 0) + 1
    return count, paths


def _succ_t(stack, b, t):
    s2, b2 = _succ(list(stack), b, t)
    return tuple(s2), b2


def _delta(nh, stack, b, t):
    """1 if transition t builds a wrong arc (0 for SHIFT or an unknown gold head)."""
    if t == 0:
        return 0
    k = (t + 1) // 2
    ls = len(stack)
    head, dep = (stack[-1], stack[ls - 1 - k]) if t % 2 else (stack[ls - 1 - k], stack[-1])
    return 0 if nh[dep] < 0 or nh[dep] == head else 1


@pytest.mark.parametrize("D", [2, 3])
def test_exhaustive_small(D):
    for n in range(1, 5):
        exhaustive_check(n, D)


@pytest.mark.slow
@pytest.mark.parametrize("D", [2, 3])
def test_exhaustive_many(D):
    total, paths = exhaustive_check(5, D)
    rng = random.Random(D)
    trees = list(_node_trees(6))
    t6, p6 = exhaustive_check(6, D, rng.sample(trees, 1500))
    partial = [[-1 if rng.random() < 0.3 else h for h in t] for t in _node_trees(5)]
    tp, pp = exhaustive_check(5, D, partial)
    print(f"attardi{D}: every state of every forest n <= 5 ({total}), 1500 forests n = 6 "
          f"({t6}), partial gold n = 5 ({tp}): exact; paths {paths} / {p6} / {pp}")


# ---- blocks: the oracle works on the current sentence, not on the whole Doc -------------------
def test_oracle_stays_in_the_current_sentence():
    """A lost state in the first sentence of a long multi-sentence document: the table only
    holds that sentence's words (|ρ| <= its length + 1), and the costs equal those of the
    sentence alone."""
    first = [1, 3, 1, 4, 4, 4, 4]                 # the table state of the guard test
    rest = []
    for s in range(30):                           # 30 more sentences of 5 words
        base = len(first) + 5 * s
        rest += [base + 1, base + 1, base + 1, base + 2, base + 3]
    heads = first + rest
    sim = Simulator("attardi", len(heads), exact_costs=True)
    alone = Simulator("attardi", len(first), exact_costs=True)
    for a in ["SHIFT", "SHIFT", "SHIFT"]:
        sim.apply(a)
        alone.apply(a)
    assert sim.costs(heads) == alone.costs(first)
    assert sim.moves.last_oracle_path == "table"
    assert max(sim.moves.oracle_.rho_histogram()) <= len(first) + 1
    g = orc.OracleGold(heads, 2, True)
    assert [e for e, _ in g.cuts][:3] == [1, 8, 13]


# ---- guard -----------------------------------------------------------------------------------
def test_guard_falls_back_to_what_the_bounds_prove_and_counts():
    # a state whose exact costs need a table (the bounds do not meet for some successor)
    gold = [1, 3, 1, 4, 4, 4, 4]
    exact = {"SHIFT": 2, "LEFT": 3, "RIGHT": 0, "LEFT_2": 1, "RIGHT_2": 1}
    sim2 = Simulator("attardi", 7, exact_costs=True)
    for a in ["SHIFT", "SHIFT", "SHIFT"]:
        sim2.apply(a)
    assert sim2.costs(gold) == exact            # (brute-force checked in test_oracles)
    assert sim2.moves.last_oracle_path == "table"
    # no table at all: the zero-cost set still exact here (the bounds find the optimum), the
    # tables that would give the suboptimal moves their exact values cannot run
    sim = Simulator("attardi", 7, budget=0, exact_costs=True)
    for a in ["SHIFT", "SHIFT", "SHIFT"]:
        sim.apply(a)
    costs = sim.costs(gold)
    assert sim.moves.last_oracle_path == "lower"
    assert sim.moves.oracle_stats()["lower"] == 1
    assert all((costs[a] == 0) == (exact[a] == 0) and costs[a] <= exact[a] for a in exact)
    assert costs != exact
    # the guard proper (the zero-cost set needs a table that cannot run): sound
    gold = [2, 0, 4, 3, 3]
    truth = {"SHIFT": 1, "LEFT": 0, "RIGHT": 1, "LEFT_2": 0, "RIGHT_2": 1}
    sim4 = Simulator("attardi", 5, exact_costs=True)
    for a in ["SHIFT", "SHIFT", "SHIFT"]:
        sim4.apply(a)
    assert sim4.costs(gold) == truth
    sim3 = Simulator("attardi", 5, exact_costs=True, max_rho=4)
    for a in ["SHIFT", "SHIFT", "SHIFT"]:
        sim3.apply(a)
    guarded = sim3.costs(gold)
    assert sim3.moves.last_oracle_path == "guard"
    assert sim3.moves.oracle_stats()["guard"] == 1
    assert all(0 <= guarded[a] <= truth[a] for a in truth)
    assert {a for a, c in guarded.items() if c == 0} > {a for a, c in truth.items() if c == 0}


def test_max_rho_guard():
    gold = list(range(30))          # 30 roots
    sim = Simulator("attardi", 30, max_rho=5)
    for _ in range(8):
        sim.apply("SHIFT")
    sim.costs(gold)
    assert sim.moves.last_oracle_path == "guard"


# ---- moves, validity, presets ----------------------------------------------------------------
def test_degree_and_moves():
    assert Simulator("attardi", 4).actions() == ["SHIFT"]
    sim = Simulator("attardi", 5, degree=3)
    for _ in range(4):
        sim.apply("SHIFT")
    assert set(sim.actions()) == {"SHIFT", "LEFT", "RIGHT", "LEFT_2", "RIGHT_2", "LEFT_3", "RIGHT_3"}
    sim = Simulator("attardi", 5)
    for _ in range(4):
        sim.apply("SHIFT")
    assert "LEFT_3" not in sim.actions()
    sim.apply("LEFT_2")         # s0 -> s2, removed from the middle
    assert sim.stack() == [0, 2, 3] and sim.heads()[1] == 3
    sim.apply("RIGHT_2")        # s2 -> s0
    assert sim.stack() == [0, 2] and sim.heads()[3] == 0
    with pytest.raises(ValueError):
        Simulator("attardi", 3, degree=4)


def test_roots_make_contiguous_sentences():
    rng = random.Random(12)
    for _ in range(200):
        n = rng.randint(1, 9)
        sim = Simulator("attardi", n, degree=3)
        while not sim.is_final():
            sim.apply(rng.choice(sim.actions()))
        assert_contiguous_sentences(sim.heads())


# ---- non-covered gold: policies ------------------------------------------------------------
def test_uncovered_policies():
    cls = Simulator("attardi", 2).moves.__class__
    vocab = Vocab()
    # a tree not derivable at degree 2 (found by the brute force in test_oracles' generator)
    heads = _uncovered_tree(2)
    words = [f"w{i}" for i in range(len(heads))]
    ref = Doc(vocab, words=words, heads=heads, deps=["dep"] * len(heads))
    eg = Example(Doc(vocab, words=words), ref)
    skip = cls(vocab.strings, uncovered="skip")
    assert skip.has_gold(eg) is False
    assert skip.oracle_stats()["docs_skipped"] == 1
    exact = cls(vocab.strings)
    assert exact.has_gold(eg) is True
    assert not exact.is_covered(heads)
    assert cls(vocab.strings, degree=3).is_covered(heads) in (True, False)
    with pytest.raises(ValueError):
        cls(vocab.strings, uncovered="nope")


def _uncovered_tree(D):
    rng = random.Random(5)
    while True:
        heads = random_forest(6, rng, "nonprojective")
        if BruteForce(heads).minloss(Simulator("attardi", 6, degree=D)) > 0:
            return heads


# ---- the static oracle on gold the system cannot build (issue 19) ---------------------------
def _gold_it_cannot_build(rng, D, kind):
    """A random gold the canonical static policy does not derive: a non-projective tree
    ("nonprojective") or a forest of 2-3 sentences ("multi") that is not covered, or a forest
    with ~30% unknown heads ("partial")."""
    while True:
        if kind == "partial":
            heads = random_forest(rng.randint(4, 7), rng,
                                  rng.choice(["projective", "nonprojective", "multi"]))
            heads = [-1 if rng.random() < 0.3 else h for h in heads]
            if -1 in heads:
                return heads
            continue
        heads = random_forest(rng.randint(4, 7) if kind == "nonprojective" else rng.randint(7, 9),
                              rng, kind)
        if not Simulator("attardi", len(heads), degree=D).moves.is_covered(heads):
            return heads


def _wrong_heads(built, gold):
    return sum(g >= 0 and h != g for h, g in zip(built, gold))


@pytest.mark.parametrize("D", [2, 3])
def test_static_oracle_is_optimal_on_gold_it_cannot_build(D):
    """oracle="static" on gold the canonical policy cannot derive: one target per state
    (static_sequence asserts it) and a path that ends with the fewest wrong heads the brute
    force finds, in contiguous sentences. Negative control: the canonical policy alone (the
    static oracle before issue 19's fix) ends above that minimum on many of the same golds:
    it SHIFTs past a word it cannot attach and closes the sentences with RIGHT."""
    rng = random.Random(19)
    names = load_compiled("system_base").MOVE_NAMES
    golds = [(kind, _gold_it_cannot_build(rng, D, kind))
             for kind in ("nonprojective", "multi", "partial") for _ in range(20)]
    best = [BruteForce(gold).minloss(Simulator("attardi", len(gold), degree=D)) for _, gold in golds]
    for (kind, gold), least in zip(golds, best):
        built, _ = static_sequence("attardi", gold, degree=D)
        assert _wrong_heads(built, gold) == least, f"{kind} gold={gold} static built {built}"
        assert_contiguous_sentences(built)
    above = {"nonprojective": 0, "multi": 0, "partial": 0}
    for (kind, gold), least in zip(golds, best):
        sim = Simulator("attardi", len(gold), degree=D)
        while not sim.is_final():
            sim.apply(names[sim.moves._sim_canonical_move(sim.state, sim._gold(gold, None))])
        assert _wrong_heads(sim.heads(), gold) >= least
        above[kind] += _wrong_heads(sim.heads(), gold) > least
    assert min(above.values()) >= 5, above



@pytest.mark.parametrize("D", [2, 3])
def test_cut_path_stays_optimal_on_gold_it_cannot_build(D):
    """get_oracle_sequence_from_state, the path spaCy's update cuts Docs into segments along
    (every state on it may start one): on gold the system cannot build it takes the static
    path, so every state on it still reaches the brute force's fewest wrong heads. The search
    budget is small (budget=100) so that the guard, whose bounds make SHIFT cost 0 where it
    is not optimal, trips on these small trees where the search is largest, as the default
    budget does on long Docs. (With a guard that trips everywhere, budget=0, the static path
    drifts too: docs/systems/attardi.md, "Cut path on gold it cannot build".) Covered gold
    keeps spaCy's path (first zero-cost class), class for class. Negative control: spaCy's
    path on the same uncovered golds drifts off every optimal path on several (issue 19)."""
    from spacy.pipeline._parser_internals.transition_system import TransitionSystem

    rng = random.Random(13)
    drifted = guards = 0
    for kind in ("nonprojective", "multi", "partial"):
        for _ in range(25):
            gold = _gold_it_cannot_build(rng, D, kind)
            sim = Simulator("attardi", len(gold), degree=D, budget=100)
            g = sim._gold(gold, None)
            bf = BruteForce(gold)
            least = bf.minloss(sim)
            path = sim.moves.get_oracle_sequence_from_state(sim.state.copy(), g)
            for clas in path:
                assert bf.minloss(sim) == least, f"{kind} gold={gold} off at {sim!r}"
                sim.moves._sim_apply(sim.state, clas)
            assert sim.is_final() and _wrong_heads(sim.heads(), gold) == least, (kind, gold)
            guards += sim.moves.oracle_stats()["guard"]
            spacy_path = TransitionSystem.get_oracle_sequence_from_state(
                sim.moves, Simulator("attardi", len(gold), degree=D, budget=100).state, g)
            ref = Simulator("attardi", len(gold), degree=D, budget=100)
            for clas in spacy_path:
                ref.moves._sim_apply(ref.state, clas)
            drifted += _wrong_heads(ref.heads(), gold) > least
    assert guards > 0 and drifted >= 3, (guards, drifted)
    for _ in range(20):
        gold = random_forest(rng.randint(4, 9), rng, rng.choice(["projective", "nonprojective", "multi"]))
        sim = Simulator("attardi", len(gold), degree=D, budget=100)
        if not sim.moves.is_covered(gold):
            continue
        g = sim._gold(gold, None)
        assert (sim.moves.get_oracle_sequence_from_state(sim.state.copy(), g)
                == TransitionSystem.get_oracle_sequence_from_state(sim.moves, sim.state.copy(), g))


# ---- the component inside spaCy ----------------------------------------------------------
def _nlp(**config):
    import spacy
    nlp = spacy.blank("xx")
    config.setdefault("min_action_freq", 1)
    config.setdefault("transition_system", "attardi")
    nlp.add_pipe("dynoracle_parser", config=config)
    return nlp


@pytest.mark.parametrize("oracle,degree", [
    ("dynamic", 2),
    pytest.param("static", 2, marks=pytest.mark.slow),
    pytest.param("dynamic", 3, marks=pytest.mark.slow)])
def test_attardi_learns_nonprojective_trees_without_lifting(oracle, degree):
    """With its defaults (schedule (2, 0.5), the static target), as a user trains it. On these
    random trees the static target learns more slowly than target="all" (5 epochs: 0.49
    against 0.53 of the heads; at (3, 0.9) 0.33 against 0.52), the opposite of UD at
    convergence (docs/systems/attardi.md, "The static target by default")."""
    from synthetic import make_examples, train
    nlp = _nlp(oracle=oracle, system_options={"degree": degree})
    examples = make_examples(nlp.vocab, 60, seed=3, kind="nonprojective", min_len=4,
                             sents_per_doc=2)
    losses = train(nlp, examples, epochs=5, shuffle=False)
    # one target class per state (the static oracle, the static target) leaves more of the
    # loss than the multi-label target: degree 3 with the static target ends at 0.51 of it
    assert losses[-1] < 0.6 * losses[0]
    parser = nlp.get_pipe("dynoracle_parser")
    assert parser.moves.projectivize is False and parser.moves.degree == degree
    assert not any("||" in name for name in parser.move_names)
    right = total = 0
    crossing = 0
    for eg in examples[:40]:
        doc = nlp(Doc(nlp.vocab, words=[t.text for t in eg.reference]))
        for t, g in zip(doc, eg.reference):
            right += t.head.i == g.head.i
            total += 1
            assert "||" not in t.dep_
        heads = [t.head.i for t in doc]
        arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads) if h != d]
        crossing += any(a < c < b < e for a, b in arcs for c, e in arcs)
        for sent in doc.sents:
            assert sum(1 for t in sent if t.head == t) == 1
            assert all(sent.start <= t.head.i < sent.end for t in sent)
    assert right / total > 0.4    # random non-projective trees, 5 short epochs (untrained: ~0.1)
    assert crossing > 0           # it does build crossing arcs directly
    stats = parser.moves.oracle_stats()
    if oracle == "dynamic":
        assert stats["fast"] > 0 and stats["docs_covered"] > 0


def test_attardi_round_trip_and_presets():
    import spacy
    from synthetic import make_examples, train
    nlp = _nlp(system_options={"degree": 3})
    examples = make_examples(nlp.vocab, 40, seed=5, sents_per_doc=2)
    train(nlp, examples, epochs=2, shuffle=False)
    nlp2 = spacy.blank("xx")
    nlp2.add_pipe("dynoracle_parser", config={"transition_system": "attardi", "system_options": {"degree": 3}})
    nlp2.from_bytes(nlp.to_bytes())
    assert nlp2.get_pipe("dynoracle_parser").moves.degree == 3
    words = [t.text for t in examples[0].reference]
    assert ([t.head.i for t in nlp(Doc(nlp.vocab, words=words))]
            == [t.head.i for t in nlp2(Doc(nlp2.vocab, words=words))])
    rng = random.Random(0)
    for _ in range(30):
        n = rng.randint(2, 30)
        starts = [True] + [rng.random() < 0.25 for _ in range(n - 1)]
        doc = nlp(Doc(nlp.vocab, words=[rng.choice(words) for _ in range(n)], sent_starts=starts))
        bounds = [i for i, s in enumerate(starts) if s] + [n]
        for a, b in zip(bounds, bounds[1:]):
            assert len([i for i in range(a, b) if doc[i].head.i == i]) == 1
            assert all(a <= doc[i].head.i < b for i in range(a, b))


def _succ(stack, b, t):
    """Node-level successor of (stack, b) by oracle transition t (0 sh, 2k-1 la_k, 2k ra_k)."""
    if t == 0:
        return stack + [b], b + 1
    k = (t + 1) // 2
    if t % 2:
        return stack[:len(stack) - 1 - k] + stack[len(stack) - k:], b
    return stack[:-1], b


def _legal(stack, b, n, D):
    out = [0] if b <= n else []
    for k in range(1, D + 1):
        if len(stack) >= k + 2:
            out += [2 * k - 1, 2 * k]
        elif k == 1 and len(stack) == 2:
            out.append(2)                    # ROOT
    return out


@pytest.mark.parametrize("D", [2, 3])
def test_training_mode_with_cache_matches_exact_zero_sets(D):
    """Training mode (exact=False) keeps per-gold the exact F of the last state's successors
    and uses it as the minimum of the next state: along long walks (Hungarian-like lengths,
    mistakes), its zero-cost sets equal the exact oracle's (itself brute-force checked)."""
    rng = random.Random(21)
    train = oracle(D, exact=False, budget=10 ** 7)
    exact = oracle(D, exact=True, budget=10 ** 7)
    used_cache = 0
    for _ in range(40):
        n = rng.randint(5, 14)
        heads = random_forest(n, rng, rng.choice(["projective", "nonprojective", "multi"]))
        g_train = orc.OracleGold(heads, D, True)
        g_exact = orc.OracleGold(heads, D, True)
        stack, b = [0], 1
        while not (stack == [0] and b > n):
            want = _legal(stack, b, n, D)
            c_ex = exact.py_costs(g_exact, stack, b, want=set(want))
            before = train.stats()["searches"]
            c_tr = train.py_costs(g_train, stack, b, want=set(want))
            zero_ex = {t for t, c in c_ex.items() if c == 0}
            if "guard" in (exact.last_path_name, train.last_path_name):
                break
            assert {t for t, c in c_tr.items() if c == 0} == zero_ex, (heads, stack, b)
            assert all(c_tr[t] <= c_ex[t] for t in want)
            used_cache += train.stats()["searches"] > before
            t = rng.choice(sorted(zero_ex)) if rng.random() < 0.8 else rng.choice(want)
            stack, b = _succ(stack, b, t)
    assert used_cache > 0
