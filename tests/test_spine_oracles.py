"""arc_standard and lr_spine (issue 5) beyond the shared brute force (test_oracles.py):
the spec's fixtures on the oracle modules directly, options, and training in spaCy.

Fixtures: docs/specs/lr_spine_and_arc_standard.md §4 (node 0 is the virtual root, gold
heads `gh` in node space with gh[0] = -1).
"""
import random

import pytest
import spacy
from spacy.tokens import Doc

from spacy_dynoracle import load_compiled
from spacy_dynoracle.testing import Simulator
from synthetic import make_examples, train_parser


def token_heads(gh):
    """Node-space gold heads (gh[0] = -1) -> token heads (a root points to itself)."""
    return [d - 1 if h == 0 else h - 1 for d, h in enumerate(gh) if d > 0]


# gh, stack (nodes, bottom -> top), b, F, costs
ARC_STANDARD_FIXTURES = [
    ([-1, 2, 0, 2, 2, 4, 2], [0, 1, 2], 4, 0, {"sh": 0, "la": 0, "ra": 4}),     # A1
    ([-1, 2, 3, 0, 3, 0, 0], [0, 2, 3], 4, 0, {"sh": 0, "la": 0, "ra": 3}),     # A2 (P1)
    ([-1, 3, 1, 0, 5, 3, 3], [0, 3, 6], 7, 0, {"la": 2, "ra": 0}),              # A3
    ([-1, 3, 0, 5, 0, 0], [0, 2], 3, 1, {"sh": 0, "ra": 0}),                    # A4 non-proj.
]


@pytest.mark.parametrize("gh,stack,b,F,costs", ARC_STANDARD_FIXTURES)
@pytest.mark.parametrize("force_general", [False, True])
def test_arc_standard_fixtures(gh, stack, b, F, costs, force_general):
    oracle = load_compiled("arc_standard_oracle").ArcStandardOracle(
        token_heads(gh), force_general)
    n = len(gh) - 1
    assert oracle.paper_exact == (not force_general and gh != [-1, 3, 0, 5, 0, 0])
    assert oracle.future(stack, b) == F

    def delta(h, d):
        return int(gh[d] != h)

    vals = {}
    if b <= n:
        vals["sh"] = oracle.future(stack + [b], b + 1)
    if len(stack) >= 3:
        vals["la"] = delta(stack[-1], stack[-2]) + oracle.future(stack[:-2] + stack[-1:], b)
    if len(stack) >= 2:
        vals["ra"] = delta(stack[-2], stack[-1]) + oracle.future(stack[:-1], b)
    # Bellman consistency (docs/specs/lr_spine_and_arc_standard.md §4.3)
    assert min(vals.values()) == F
    assert {t: v - F for t, v in vals.items()} == costs


def random_doc_heads(rng, max_sents=5, max_len=12):
    """Token heads of a Doc of 1..max_sents gold sentences, each projective or not; half
    of the Docs with about 20% of the heads unknown (partial gold)."""
    from bruteforce import random_forest
    heads = []
    for _ in range(rng.randint(1, max_sents)):
        sent = random_forest(rng.randint(1, max_len), rng,
                             rng.choice(["projective", "nonprojective"]))
        heads += [h + len(heads) for h in sent]
    if rng.random() < 0.5:
        heads = [-1 if rng.random() < 0.2 else h for h in heads]
    return heads


@pytest.mark.parametrize("seed,n_docs", [(0, 200), pytest.param(1, 3000, marks=pytest.mark.slow)])
def test_arc_standard_cut_at_sentences_equals_whole_doc_dp(seed, n_docs):
    """The oracle cut at gold sentence (block) boundaries, each part on [GSS14] or the
    §3.6 DP, mixed stacks through the lower-run pass (lemma L1 in arc_standard_oracle.pyx),
    gives the same F and costs as the §3.6 DP over the whole Doc (the oracle before the
    cut, exact by the brute force) on Docs beyond the brute force's reach (up to 60
    words), in random configurations: any subset of the words before b can be the stack,
    including words of several sentences."""
    mod = load_compiled("arc_standard_oracle")
    rng = random.Random(seed)
    states, paths = 0, {}
    for _ in range(n_docs):
        heads = random_doc_heads(rng)
        n = len(heads)
        cut = mod.ArcStandardOracle(heads)
        whole = mod.ArcStandardOracle(heads, force_general=True, split=False, contract=False)
        assert len(whole.blocks) == 1
        for _ in range(10):
            b = rng.randint(1, n + 1)
            p = rng.choice([0.2, 0.5, 0.9])
            stack = [0] + [x for x in range(1, b) if rng.random() < p]
            if len(stack) == 1 and b > n:
                continue
            assert cut.future(stack, b) == whole.future(stack, b), (heads, stack, b)
            assert cut.costs(stack, b) == whole.costs(stack, b), (heads, stack, b)
            paths[cut.last_path & 28] = paths.get(cut.last_path & 28, 0) + 1
            states += 1
    print(f"{states} configurations; by flags cut 4 / mixed 8 / next 16: {sorted(paths.items())}")
    assert states > 8 * n_docs
    assert all(any(p & f for p in paths) for f in (4, 8, 16))   # cut, mixed, next


@pytest.mark.parametrize("seed,n_docs", [(0, 150), pytest.param(1, 2000, marks=pytest.mark.slow)])
def test_arc_standard_buffer_fragments_equal_word_dp(seed, n_docs):
    """The §3.6 DP over buffer nodes (largest complete projective gold subtrees in the
    buffer contracted to their roots, "Buffer fragments" in arc_standard_oracle.pyx)
    gives the same F and costs as the DP over buffer words, on Docs of 1-3 sentences of
    up to 25 words (beyond the brute force's n <= 7), projective or not, half of them
    with unknown heads, in random configurations; and it visits fewer DP cells."""
    mod = load_compiled("arc_standard_oracle")
    rng = random.Random(seed)
    states, cells_nodes, cells_words = 0, 0, 0
    for _ in range(n_docs):
        heads = random_doc_heads(rng, max_sents=3, max_len=25)
        n = len(heads)
        nodes = mod.ArcStandardOracle(heads, force_general=True)
        words = mod.ArcStandardOracle(heads, force_general=True, contract=False)
        for _ in range(10):
            b = rng.randint(1, n + 1)
            stack = [0] + [x for x in range(1, b) if rng.random() < rng.choice([0.2, 0.5, 0.9])]
            if len(stack) == 1 and b > n:
                continue
            assert nodes.future(stack, b) == words.future(stack, b), (heads, stack, b)
            assert nodes.costs(stack, b) == words.costs(stack, b), (heads, stack, b)
            cells_nodes += nodes.last_cells
            cells_words += words.last_cells
            states += 1
    print(f"{states} configurations, DP cells {cells_nodes} over nodes, {cells_words} over words")
    assert states > 8 * n_docs
    assert cells_nodes < cells_words


def test_arc_standard_blocks():
    """Blocks: the sentences of complete gold, each on the DP its own gold allows; with
    partial gold, a word whose head is unknown and that no arc covers is a block."""
    mod = load_compiled("arc_standard_oracle")
    #        proj. [0..2]  non-proj. [3..6]   proj. [7, 8]
    heads = [1, 1, 1,      5, 4, 4, 3,        7, 7]
    oracle = mod.ArcStandardOracle(heads)
    assert oracle.blocks == [(0, 2, "paper"), (3, 6, "general"), (7, 8, "paper")]
    assert not oracle.paper_exact
    assert mod.ArcStandardOracle([1, 1, -1, 4, 4]).blocks == [
        (0, 1, "paper"), (2, 2, "general"), (3, 4, "paper")]
    assert mod.ArcStandardOracle(heads, split=False).blocks == [(0, 8, "general")]
    assert mod.ArcStandardOracle(heads[:3] + [h - 4 for h in heads[7:]]).paper_exact
    with pytest.raises(ValueError, match="out of range"):
        mod.ArcStandardOracle(heads[:3] + heads[7:])    # heads 7 in a 5-word Doc


@pytest.mark.parametrize("system", ["arc_standard", "lr_spine"])
def test_gold_without_oracle_data_is_guarded(system):
    """init_gold and the Simulator attach the oracle's gold; a DynGold made by hand
    without it gets zero costs from move_costs (counted) and an error from set_costs and
    step_batch, never a NULL dereference."""
    import numpy
    sim = Simulator(system, 3).apply("SHIFT").apply("SHIFT")
    gold = load_compiled("system_base").DynGold([1, 1, 1], [0, 0, 0])
    assert set(sim.moves._sim_costs(sim.state, gold).values()) == {0}
    assert sim.moves.missing_oracle == 1
    with pytest.raises(ValueError, match="no oracle data"):
        sim.moves._sim_class_costs(sim.state, gold)
    n = sim.moves.n_moves
    with pytest.raises(ValueError, match="no oracle data"):
        sim.moves.step_batch([sim.state], [gold], numpy.zeros((1, n), "f"),
                             numpy.zeros((1, n), "f"), numpy.ones(1, numpy.uint8),
                             numpy.zeros(n, numpy.uint8))
    sim.moves.attach_oracle(gold)
    costs = sim.moves._sim_costs(sim.state, gold)       # SHIFT, LEFT, RIGHT
    assert costs[0] == costs[1] == 0 and costs[2] > 0
    assert sim.moves.missing_oracle == 1


# gh, stack [(ls, rs)] bottom -> top, b, costs with the cap K = 4 (the spec's are uncapped)
def lr_spine_walk(n, K, rng, p_shift):
    """Configurations of the capped LR-spine in oracle space along one random computation
    over n words: (elements bottom -> top as (left spine, right spine), cut at depth K; b)."""
    elems, b = [([0], [0])], 1
    while True:
        moves = []
        if b <= n:
            moves.append(("sh", 0))
        if len(elems) >= 2:
            (ls2, rs2), (ls1, rs1) = elems[-2], elems[-1]
            moves += [("la", k) for k in range(1, K + 1) if k <= len(ls1) and ls2[0] != 0]
            moves += [("ra", k) for k in range(1, K + 1) if k <= len(rs2)]
        if not moves:
            return
        yield [(list(ls), list(rs)) for ls, rs in elems], b
        if b <= n and rng.random() < p_shift:
            move, k = "sh", 0
        else:
            move, k = rng.choice(moves)
        if move == "sh":
            elems.append(([b], [b]))
            b += 1
        elif move == "la":
            (ls2, rs2), (ls1, rs1) = elems.pop(-2), elems.pop()
            elems.append(((ls1[:k] + ls2)[:K], rs1))
        else:
            (ls2, rs2), (ls1, rs1) = elems.pop(-2), elems.pop()
            elems.append((ls2, (rs2[:k] + rs1)[:K]))


@pytest.mark.parametrize("seed,n_docs", [(0, 60), pytest.param(1, 600, marks=pytest.mark.slow)])
@pytest.mark.parametrize("K", [1, 2, 3])
def test_lr_spine_buffer_cut_equals_whole_doc_dp(seed, n_docs, K):
    """The DP with the buffer cut at the end of b's gold sentence (block) gives the same
    values delta + F(successor) for every move as the DP over the Doc's whole buffer (exact
    by the brute force), on Docs of several projective sentences (up to 36 words) beyond
    the brute force's reach, along random computations that keep deep stacks of words of
    several sentences (see lr_spine_oracle.pyx: later sentences add 0 to F)."""
    from bruteforce import random_projective_tree
    mod = load_compiled("lr_spine_oracle")
    rng = random.Random(seed * 10 + K)
    cut_work, whole_work = mod.LRSWork(K), mod.LRSWork(K, cut=False)
    assert cut_work.cut and not whole_work.cut
    states = cut_states = 0
    for _ in range(n_docs):
        heads = []
        for _ in range(rng.randint(2, 4)):
            heads += [h + len(heads) for h in random_projective_tree(rng.randint(1, 9), rng)]
        gold = mod.LRSpineGold(heads)
        ends = [i + 1 for i in range(len(heads)) if all(
            not (min(d, h) <= i < max(d, h)) for d, h in enumerate(heads))]   # sentence ends
        for elems, b in lr_spine_walk(len(heads), K, rng, rng.choice([0.5, 0.8, 0.95])):
            if rng.random() < 0.5:
                continue
            got = mod.lrs_values(cut_work, gold, elems, b)
            assert got == mod.lrs_values(whole_work, gold, elems, b), (heads, elems, b)
            assert any(v is not None for v in got)
            states += 1
            cut_states += b <= len(heads) and any(b <= e < len(heads) for e in ends)
    print(f"K={K}: {states} configurations, {cut_states} with sentences cut off")
    assert cut_states > 5 * n_docs



LRS_PATHS = {"plain": 1, "mixed": 2, "dirty": 4, "next": 8}     # LRS_PATH_* (the .pxd)


@pytest.mark.parametrize("seed,n_docs", [(0, 100), pytest.param(1, 500, marks=pytest.mark.slow)])
@pytest.mark.parametrize("K", [1, 2, 3])
def test_lr_spine_mixed_stacks_equal_whole_doc_dp(seed, n_docs, K):
    """Stacks holding elements of several gold sentences (blocks): the split into the top
    DP (its first arc 0 -> h priced by the lower pass, per root type of h) and the cached
    stack-only lower pass, and the next-block split (F of the stack alone + the DP of
    [0] and b..E), give the same values delta + F(successor) for every move as the DP over
    the whole Doc (exact by the brute force), on Docs of 2-5 projective sentences, half
    of them with ~20% unknown heads (finer blocks), along random computations (mostly
    shifts: deep stacks of many sentences, and random arcs, some across sentences). Both
    clean-split conditions (mixed=1 strict, mixed=2 the default) are checked, every path
    must occur, and the whole-stack fallback ("dirty") must agree too."""
    from bruteforce import random_projective_tree
    mod = load_compiled("lr_spine_oracle")
    rng = random.Random(seed * 10 + K + 100)
    works = [mod.LRSWork(K), mod.LRSWork(K, mixed=1)]
    whole = mod.LRSWork(K, cut=False)
    assert works[0].mixed == 2 and whole.mixed == 2    # cut=False: mixed is not used
    for work in works + [whole]:
        work.bellman = False    # every successor through a DP path (no value from the memo)
    paths = {}
    states = 0
    for _ in range(n_docs):
        heads = []
        for _ in range(rng.randint(2, 5)):
            heads += [h + len(heads) for h in random_projective_tree(rng.randint(1, 9), rng)]
        if rng.random() < 0.5:
            heads = [-1 if rng.random() < 0.2 else h for h in heads]
        gold = mod.LRSpineGold(heads)
        for elems, b in lr_spine_walk(len(heads), K, rng, rng.choice([0.5, 0.8, 0.95])):
            want = mod.lrs_values(whole, gold, elems, b)
            assert whole.last_path == LRS_PATHS["plain"]
            for work in works:
                assert mod.lrs_values(work, gold, elems, b) == want, (
                    work.mixed, heads, elems, b, work.last_path)
                for name, flag in LRS_PATHS.items():
                    if work.last_path & flag:
                        key = (work.mixed, name)
                        paths[key] = paths.get(key, 0) + 1
            states += 1
    print(f"K={K}: {states} configurations; successor paths by (mode, path): "
          f"{sorted(paths.items())}; lower passes {works[0].rho_misses}")
    assert states > 20 * n_docs
    for mode in (1, 2):
        assert paths.get((mode, "mixed"), 0) > 10 * n_docs
        assert paths.get((mode, "next"), 0) > n_docs
        assert paths.get((mode, "dirty"), 0) > (n_docs // 10 if K > 1 else 0) - 1
    assert works[0].rho_misses < paths[(2, "mixed")]     # the cache is hit


def test_lr_spine_oracle_paths_on_statec():
    """The system reports the oracle's paths (oracle_stats, last_oracle_path), and the
    lower pass is computed once for the states that share the lower elements (every
    successor through its DP: greedy_bounds would settle some without one)."""
    heads = [1, 1, 3, 3, 3]                         # sentences {0, 1}, {2, 3, 4}

    def run(actions):
        sim = Simulator("lr_spine", 5, max_k=2, greedy_bounds=False)
        gold = load_compiled("system_base").DynGold(heads, [0] * 5)
        sim.moves.attach_oracle(gold)
        for a in actions:
            sim.apply(a)
        sim.moves._sim_costs(sim.state, gold)
        return sim, gold

    # stack [0, 1, 2, 3], b = 4: every successor splits (sh, la_1, ra_1 within {2, 3, 4})
    sim, gold = run(["SHIFT"] * 4)
    assert sim.moves.last_oracle_path == "mixed"
    stats = sim.moves.oracle_stats()
    assert (stats["states"], stats["mixed"], stats["lower_passes"]) == (1, 1, 1)
    sim.apply("SHIFT")                              # empty buffer, same lower elements
    sim.moves._sim_costs(sim.state, gold)
    assert sim.moves.last_oracle_path == "mixed"
    stats = sim.moves.oracle_stats()
    assert (stats["states"], stats["mixed"], stats["lower_passes"]) == (2, 2, 1)
    # stack [0, 1], b = 2 starts the second sentence: sh splits; la_1 / ra_1 leave one
    # element of the first sentence: next block (its stack part is a plain DP)
    sim, gold = run(["SHIFT"] * 2)
    assert sim.moves.last_oracle_path == "plain+mixed+next"


def test_lr_spine_oracle_clock():
    """`timed` (off by default; every system's since clock16, tests/test_oracle_clock.py)
    adds the oracle's CPU time to oracle_stats()["oracle_cpu_s"] (benchmarks/train_step.py
    reads it: the update's CPU swings between runs on a loaded machine, the oracle's own much
    less); lr_spine's costs and counters are the same with it on."""
    heads = [1, 1, 3, 3, 3, 3, 5, 3]                # sentences {0, 1}, {2..7}

    def walk(timed):
        sim = Simulator("lr_spine", 8, max_k=2)
        gold = load_compiled("system_base").DynGold(heads, [0] * 8)
        sim.moves.attach_oracle(gold)
        sim.moves.timed = timed
        costs = []
        for a in ["SHIFT"] * 3:                     # stack [0, 1, 2, 3]: a mixed stack
            sim.apply(a)
        for _ in range(50):                         # enough calls for the clock to tick
            costs.append(sorted(sim.moves._sim_costs(sim.state, gold).items()))
        for a in ["SHIFT"] * 3:
            sim.apply(a)
            costs.append(sorted(sim.moves._sim_costs(sim.state, gold).items()))
        return sim.moves.oracle_stats(), costs

    off, costs_off = walk(False)
    on, costs_on = walk(True)
    assert off["oracle_cpu_s"] == 0 and on["oracle_cpu_s"] > 0
    assert on["states"] == off["states"] == 53 and costs_on == costs_off

LR_SPINE_FIXTURES = [
    ([-1, 2, 0, 2, 0, 4, 0, 6], [([0], [0, 2, 3]), ([4], [4])], 5,
     {"sh": 0, "ra_1": 0, "ra_2": 1, "ra_3": 1}),                                   # S1
    ([-1, 0, 3, 1, 3, 1, 1, 1], [([0], [0]), ([1], [1, 3, 4]), ([5], [5])], 6,
     {"sh": 1, "la_1": 4, "ra_1": 0, "ra_2": 1, "ra_3": 1}),                       # S2
    # S3: uncapped, ra_4 costs 1; with K = 4 it puts 5 at depth 5, dead although 6 is its
    # gold dependent, so it costs 2
    ([-1, 3, 1, 0, 3, 3, 5], [([0], [0, 2, 3, 4]), ([5], [5])], 6,
     {"sh": 0, "ra_1": 1, "ra_2": 1, "ra_3": 0, "ra_4": 2}),                       # S3
    ([-1, 0, 3, 6, 5, 6, 1], [([0], [0]), ([1], [1]), ([2], [2, 3]), ([4], [4]), ([5], [5]),
                              ([6], [6])], 7, {"la_1": 0, "ra_1": 2}),            # S4 (P2)
]


def lr_spine_costs(gh, elems, b, K):
    mod = load_compiled("lr_spine_oracle")
    vals = mod.lrs_values(mod.LRSWork(K), mod.LRSpineGold(token_heads(gh)), elems, b)
    names = ["sh"] + [f"la_{k}" for k in range(1, K + 1)] + [f"ra_{k}" for k in range(1, K + 1)]
    best = min(v for v in vals if v is not None)
    return {name: v - best for name, v in zip(names, vals) if v is not None}


@pytest.mark.parametrize("gh,elems,b,costs", LR_SPINE_FIXTURES)
def test_lr_spine_fixtures(gh, elems, b, costs):
    assert lr_spine_costs(gh, elems, b, K=4) == costs


def test_lr_spine_fixture_nonprojective_is_the_papers_approximation():
    """S5: on non-projective gold the tabular DP is not exact
    (docs/specs/lr_spine_and_arc_standard.md §3.9): the exact costs are sh 0, ra_1 1; the DP, like
    the paper's, calls ra_1 free."""
    gh = [-1, 4, 1, 7, 0, 4, 2, 4]
    assert lr_spine_costs(gh, [([0], [0]), ([1], [1])], 2, K=4) == {"sh": 0, "ra_1": 0}


def test_lr_spine_cap_changes_costs():
    """S3 with the cap at 3 (§6 P12): node 4 is dead, ra_4 does not exist, and the gold
    attachment ra_3 is no longer free: it would put 5 at depth 4, dead before it takes its
    gold dependent 6. The exact capped oracle defers it (sh, then ra_1 5 -> 6, then ra_3)."""
    gh = [-1, 3, 1, 0, 3, 3, 5]
    costs = lr_spine_costs(gh, [([0], [0, 2, 3, 4]), ([5], [5])], 6, K=3)
    assert costs == {"sh": 0, "ra_1": 1, "ra_2": 1, "ra_3": 1}


def test_lr_spine_max_k_option():
    assert Simulator("lr_spine", 4, max_k=2).actions() == ["SHIFT"]
    names = Simulator("lr_spine", 4, max_k=3).moves.move_types
    assert len(names) == 8
    assert len(Simulator("lr_spine", 4, max_k=1).moves.move_types) == 4
    with pytest.raises(ValueError, match="max_k"):
        Simulator("lr_spine", 4, max_k=4)
    with pytest.raises(ValueError, match="max_k"):
        Simulator("arc_standard", 4, max_k=2)


def test_lr_spine_spine_attachment_on_statec():
    """LEFT_k/RIGHT_k attach to the k-th spine node, read off StateC's arcs."""
    sim = Simulator("lr_spine", 5, max_k=2)
    for a in ["SHIFT", "SHIFT", "RIGHT", "SHIFT"]:     # 0 -> 1, then push 2
        sim.apply(a)
    assert sim.actions() == ["SHIFT", "LEFT", "RIGHT", "RIGHT_2"]
    sim.apply("RIGHT_2")                               # rs(0) = [0, 1]: 1 -> 2
    assert sim.heads()[:3] == [-1, 0, 1]
    sim.apply("SHIFT").apply("SHIFT").apply("LEFT")    # 4 -> 3
    assert sim.stack() == [0, 4] and sim.buffer() == []
    assert sim.actions() == ["LEFT", "RIGHT", "LEFT_2", "RIGHT_2"]    # ls(4) = [4, 3]
    sim.apply("RIGHT_2")                               # rs(0) = [0, 1, 2]: 1 -> 4
    assert sim.heads() == [-1, 0, 1, 4, 1]
    assert sim.actions() == ["ROOT"]
    assert sim.apply("ROOT").is_final() and sim.heads()[0] == 0


@pytest.mark.parametrize("preset", [False, True])
def test_lr_spine_virtual_root_spine(preset):
    """With s0 alone on the stack, RIGHT_2 attaches it to the last root (the virtual
    root's right spine), unless s0 starts a preset sentence."""
    sim = Simulator("lr_spine", 3, max_k=2, sent_starts=[1, 1 if preset else 0, 0])
    sim.apply("SHIFT").apply("ROOT").apply("SHIFT")
    assert ("RIGHT_2" in sim.actions()) != preset
    if not preset:
        sim.apply("RIGHT_2")
        assert sim.heads()[:2] == [0, 0]


def make_nlp(**config):
    nlp = spacy.blank("xx")
    config.setdefault("min_action_freq", 1)
    nlp.add_pipe("dynoracle_parser", config=config)
    return nlp


def train_and_score(nlp, kind, epochs=6):
    train_parser(nlp, make_examples(nlp.vocab, 100, seed=1, kind=kind), epochs, shuffle=True)
    right = total = 0
    for eg in make_examples(nlp.vocab, 30, seed=2, kind=kind):
        doc = nlp(Doc(nlp.vocab, words=[t.text for t in eg.reference]))
        right += sum(t.head.i == g.head.i for t, g in zip(doc, eg.reference))
        total += len(doc)
    return right / total


@pytest.mark.parametrize("system,config", [
    ("arc_standard", {}),
    ("lr_spine", {"system_options": {"max_k": 2}}),
    pytest.param("lr_spine", {"oracle": "static"}, marks=pytest.mark.slow),
])
def test_systems_learn(system, config):
    nlp = make_nlp(transition_system=system, **config)
    assert train_and_score(nlp, "projective") > 0.8


def test_arc_standard_trains_on_raw_nonprojective_trees():
    """The exact oracle needs no lifting: no decorated labels, no deprojectivization."""
    nlp = make_nlp(transition_system="arc_standard")
    parser = nlp.get_pipe("dynoracle_parser")
    assert parser.moves.projectivize is False
    train_and_score(nlp, "nonprojective", epochs=1)
    assert not any("||" in name for name in parser.move_names)
    lifted = make_nlp(transition_system="arc_standard", projectivize=True)
    assert lifted.get_pipe("dynoracle_parser").moves.projectivize is True


# ---- spine-aware features (architectures.py, state_features.pyx; spaCy's templates and the
# other systems' in test_state_features.py) ------------------------------------------------
def test_spine_template_sees_the_attachment_sites():
    import numpy
    fill = load_compiled("state_features").fill_token_ids
    sim = Simulator("lr_spine", 6, max_k=3)
    for a in ["SHIFT", "SHIFT", "RIGHT", "SHIFT", "RIGHT_2", "SHIFT", "SHIFT", "LEFT", "SHIFT",
              "LEFT"]:
        sim.apply(a)
    # stack [0, 5]: ls(5) = [5, 4, 3], rs(0) = [0, 1, 2]
    assert sim.stack() == [0, 5]
    ids = numpy.full((1, 13), -1, dtype="i")
    fill([sim.state], ids, "spine", 3)
    row = ids[0].tolist()
    assert row[2:4] == [5, 0] and row[6] == 4        # S0, S1, ls(S0)[2] = L(S0)
    assert row[8] == 3                               # ls(S0)[3]: LEFT_3's head
    assert row[9:11] == [1, 2]                       # rs(S1)[2], rs(S1)[3]: RIGHT_2/3 heads
    assert row[11:13] == [-1, -1]                    # not alone on the stack


@pytest.mark.parametrize("template", ["spine", pytest.param("base", marks=pytest.mark.slow)])
def test_spine_model_trains_saves_and_loads(template, tmp_path):
    model = {"@architectures": "spacy_dynoracle.SpineParserModel.v1",
             "feature_template": template, "max_k": 2,
             "tok2vec": {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None,
                         "width": 96, "depth": 4, "embed_size": 2000, "window_size": 1,
                         "maxout_pieces": 3, "subword_features": True}}
    nlp = make_nlp(transition_system="lr_spine", system_options={"max_k": 2}, model=model)
    assert train_and_score(nlp, "projective") > 0.8
    nF = nlp.get_pipe("dynoracle_parser").model.get_ref("lower").get_dim("nF")
    assert nF == (10 if template == "spine" else 8)
    docs = [Doc(nlp.vocab, words=[t.text for t in eg.reference])
            for eg in make_examples(nlp.vocab, 5, seed=9)]
    heads = [[t.head.i for t in doc] for doc in nlp.pipe(docs)]
    nlp.to_disk(tmp_path)
    nlp2 = spacy.load(tmp_path)
    docs2 = [Doc(nlp2.vocab, words=[t.text for t in doc]) for doc in docs]
    assert [[t.head.i for t in doc] for doc in nlp2.pipe(docs2)] == heads


def test_spine_model_is_a_drop_in_for_the_config_model_block():
    """configs/dynoracle.cfg's TransitionBasedParser.v2 block takes SpineParserModel.v1 by
    changing @architectures (+ feature_template): its state_type/extra_state_tokens keys
    are accepted, and only their meaningful values."""
    from pathlib import Path

    from spacy.util import load_config, load_model_from_config

    cfg_path = Path(__file__).resolve().parents[1] / "configs" / "dynoracle.cfg"
    overrides = {"components.parser.transition_system": "lr_spine",
                 "components.parser.model.@architectures": "spacy_dynoracle.SpineParserModel.v1",
                 "components.parser.model.feature_template": "spine"}
    nlp = load_model_from_config(load_config(cfg_path, overrides=overrides), auto_fill=True)
    model = nlp.get_pipe("parser").model
    assert model.attrs["feature_template"] == "spine"
    overrides["components.parser.model.extra_state_tokens"] = True
    with pytest.raises(ValueError, match="extra_state_tokens"):
        load_model_from_config(load_config(cfg_path, overrides=overrides), auto_fill=True)


@pytest.mark.parametrize("seed,n_docs", [(0, 150), pytest.param(1, 2000, marks=pytest.mark.slow)])
def test_arc_standard_guard_is_sound(seed, n_docs):
    """The guard ("Budget" in arc_standard_oracle.pyx): with a budget small enough to trip
    on most configurations, F is an upper bound at most last_future_slack above the exact
    F, every cost is a lower bound on the exact cost, every exact zero-cost move keeps
    cost 0, and without slack the costs are the exact ones."""
    mod = load_compiled("arc_standard_oracle")
    rng = random.Random(seed)
    states = tripped = inexact = 0
    for _ in range(n_docs):
        heads = random_doc_heads(rng, max_sents=3, max_len=20)
        n = len(heads)
        exact = mod.ArcStandardOracle(heads)
        budget = rng.choice([1, 30, 200, 2000])
        guarded = mod.ArcStandardOracle(heads, budget=budget)
        for _ in range(10):
            b = rng.randint(1, n + 1)
            stack = [0] + [x for x in range(1, b) if rng.random() < rng.choice([0.3, 0.7, 1.0])]
            if len(stack) == 1 and b > n:
                continue
            f, g = exact.future(stack, b), guarded.future(stack, b)
            assert f <= g <= f + guarded.last_future_slack, (heads, stack, b, budget)
            want, got = exact.costs(stack, b), guarded.costs(stack, b)
            slack = guarded.last_slack
            assert all(got[a] <= want[a] for a in want), (heads, stack, b, budget, want, got)
            assert all(got[a] == 0 for a in want if want[a] == 0), (heads, stack, b, want, got)
            if not any(slack.values()):
                assert got == want, (heads, stack, b, budget, want, got)
            states += 1
            tripped += bool(guarded.last_path & 32)
            inexact += bool(guarded.last_path & 64)
    print(f"{states} configurations, guard tripped on {tripped}, inexact on {inexact}")
    assert tripped > states // 4 and inexact > 0


@pytest.mark.parametrize("system,seed,kinds", [
    ("arc_standard", 3, ["projective", "nonprojective", "multi"]),
    ("lr_spine", 5, ["projective"]),      # exact DP: projective gold
])
def test_budget_option(system, seed, kinds):
    """`budget` is a system option (0: no guard); the Simulator's costs with a tiny budget
    are lower bounds on the exact ones, with the exact zero-cost moves at 0, and the
    guarded states are counted (oracle_stats()["guard"])."""
    from bruteforce import random_forest
    rng = random.Random(seed)
    with pytest.raises(ValueError, match="budget"):
        Simulator(system, 3, budget=-1)
    guarded_states = 0
    for _ in range(30):
        n = rng.randint(4, 10)
        gold = random_forest(n, rng, rng.choice(kinds))
        exact = Simulator(system, n, budget=0)
        tight = Simulator(system, n, budget=1)
        while not exact.is_final():
            want, got = exact.costs(gold), tight.costs(gold)
            assert set(want) == set(got)
            assert all(got[a] <= want[a] and (want[a] > 0 or got[a] == 0) for a in want)
            act = rng.choice(sorted(want))
            exact.apply(act)
            tight.apply(act)
        guarded_states += tight.moves.oracle_stats()["guard"]
        assert exact.moves.oracle_stats()["guard"] == 0
    assert guarded_states > 0


LRS_PATH_GUARD = 16     # LRS_PATH_GUARD (lr_spine_oracle.pxd)


@pytest.mark.parametrize("seed,n_docs", [(0, 40), pytest.param(1, 400, marks=pytest.mark.slow)])
@pytest.mark.parametrize("K", [1, 2, 3])
def test_lr_spine_guard_is_sound(seed, n_docs, K):
    """The guard (lr_spine_oracle.pyx, "Guard"), on Docs of 1-4 complete projective
    sentences (where the DP is exact) along random computations with deep stacks, with
    budgets small enough to trip: the bounds hold (lost <= F <= upper), every guarded
    cost is at most the exact one, every exact zero-cost move keeps 0, the guard trips,
    and the guarded costs are not all 0 (the bounds still separate moves)."""
    mod = load_compiled("lr_spine_oracle")
    rng = random.Random(seed * 10 + K + 200)
    exact = mod.LRSWork(K)
    states = tripped = informative = exact_tripped = 0
    def new_work():
        return mod.LRSWork(K, budget=rng.choice([1, 30, 200, 2000]))

    for heads, gold, guarded, elems, b, want, got in against_exact(
            mod, exact, K, rng, n_docs, 4, 12, new_work):
        cost_want, cost_got = costs_of(want), costs_of(got)
        assert all(g <= w and (w > 0 or g == 0) for g, w in zip(cost_got, cost_want)), (
            heads, elems, b, want, got)
        low, up = mod.lrs_future_bounds(guarded, gold, elems, b)
        f = exact_future(mod, exact, gold, elems, b)
        assert low <= f <= up, (heads, elems, b, low, f, up)
        states += 1
        if guarded.last_path & LRS_PATH_GUARD:
            tripped += 1
            informative += any(cost_got)
            exact_tripped += cost_got == cost_want
    print(f"K={K}: {states} configurations, guard tripped on {tripped}, with some cost > 0 "
          f"on {informative}, exact costs on {exact_tripped}")
    assert tripped > states // 4
    assert informative > 0


@pytest.mark.parametrize("seed,n_docs", [(0, 30), pytest.param(1, 300, marks=pytest.mark.slow)])
@pytest.mark.parametrize("K", [1, 2, 3])
def test_lr_spine_zero_set_mode(seed, n_docs, K):
    """exact=False (lr_spine_oracle.pyx, "Zero-cost set only"), on Docs of 1-3 complete
    projective sentences of up to 20 words along random computations with deep stacks, with
    and without a guard: the smallest value is F, the zero-cost moves are exactly the exact
    DP's and every other cost is between 1 and the exact one; where the guard trips, the
    guard's contract holds (at most the exact costs, 0 wherever the exact cost is 0). The
    bound is used: entries are dropped and the memo supplies it."""
    mod = load_compiled("lr_spine_oracle")
    rng = random.Random(seed * 10 + K + 300)
    exact = mod.LRSWork(K)
    states = guarded = 0
    works = []

    def new_work():
        works.append(mod.LRSWork(K, exact=False, budget=rng.choice([0, 0, 300, 3000])))
        return works[-1]

    for heads, gold, work, elems, b, want, got in against_exact(
            mod, exact, K, rng, n_docs, 3, 20, new_work):
        F, G = min(v for v in want if v is not None), min(v for v in got if v is not None)
        cost_want, cost_got = costs_of(want), costs_of(got)
        if work.last_path & LRS_PATH_GUARD:
            guarded += 1
            assert all(g <= w and (w > 0 or g == 0) for g, w in zip(cost_got, cost_want)), (
                heads, elems, b, want, got)
        else:
            assert G == F, (heads, elems, b, want, got)
            assert all((g == 0) == (w == 0) and g <= w for g, w in zip(cost_got, cost_want)), (
                heads, elems, b, want, got)
        states += 1
    pruned = sum(w.pruned for w in works)
    hits = sum(w.memo_hits for w in works)
    print(f"K={K}: {states} configurations, {guarded} guarded, {pruned} entries dropped by "
          f"the bound, {hits} bounds from the memo")
    assert pruned > 0 and hits > 0


def test_lr_spine_exact_costs_option():
    """exact_costs is a system option (default "beam", null means it too): True reaches the
    oracle as exact values, False and "beam" as the zero-cost set, the Simulator gets the same
    costs as training; "beam" (only) switches to exact values inside beam_update_costs and
    restores the mode after; anything else is refused."""
    assert Simulator("lr_spine", 3, exact_costs=True).moves.work.exact
    for mode in (False, "beam", None):
        assert not Simulator("lr_spine", 3, exact_costs=mode).moves.work.exact, mode
    default = Simulator("lr_spine", 3).moves
    assert not default.work.exact
    with default.beam_update_costs():
        assert default.work.exact
    assert not default.work.exact
    cheap = Simulator("lr_spine", 3, exact_costs=False).moves
    with cheap.beam_update_costs():
        assert not cheap.work.exact
    with pytest.raises(ValueError, match="exact_costs"):
        Simulator("lr_spine", 3, exact_costs="yes")


def check_zero_set_mode_bruteforce(n_states, seed):
    """exact_costs=False through the Simulator against the shared brute force on projective
    and multi-sentence projective gold of 2-7 words: every optimal move costs 0, every other
    one 1 <= cost <= its exact cost."""
    from bruteforce import BruteForce, random_projective_tree, sample_states
    rng = random.Random(seed)

    def new_case(kind):
        heads = []
        single = kind == "projective"
        for _ in range(1 if single else rng.randint(2, 3)):
            m = rng.randint(2, 7) if single else rng.randint(1, 3)
            heads += [h + len(heads) for h in random_projective_tree(m, rng)]
        return heads, BruteForce(heads), Simulator("lr_spine", len(heads), exact_costs=False)

    checked = 0
    for _, gold, bf, _, sim in sample_states(rng, n_states, ["projective", "multi-projective"],
                                             new_case, per_gold=5):
        costs = sim.costs(gold)
        for a, exact in bf.exact_costs(sim, costs).items():
            assert (costs[a] == 0) == (exact == 0), (gold, sim, a, costs[a], exact)
            assert costs[a] <= exact, (gold, sim, a, costs[a], exact)
        checked += 1
    return checked


def test_lr_spine_zero_set_mode_bruteforce():
    check_zero_set_mode_bruteforce(150, seed=7)


@pytest.mark.slow
def test_lr_spine_zero_set_mode_bruteforce_many():
    checked = check_zero_set_mode_bruteforce(5000, seed=17)
    print(f"lr_spine exact_costs=False: {checked} states, 0 wrong")


def against_exact(mod, exact, K, rng, n_docs, max_sents, max_len, make_work):
    """Configurations along random computations with deep stacks (lr_spine_walk) on Docs
    of 1..max_sents complete projective sentences of 1..max_len words (where the DP is
    exact): (heads, gold, work, elems, b, values by `exact`, values by `work`), one
    make_work() per Doc; the two agree on which moves are valid."""
    from bruteforce import random_projective_tree
    for _ in range(n_docs):
        heads = []
        for _ in range(rng.randint(1, max_sents)):
            heads += [h + len(heads) for h in random_projective_tree(rng.randint(1, max_len), rng)]
        gold = mod.LRSpineGold(heads)
        work = make_work()
        for elems, b in lr_spine_walk(len(heads), K, rng, rng.choice([0.5, 0.8, 0.95])):
            want = mod.lrs_values(exact, gold, elems, b)
            got = mod.lrs_values(work, gold, elems, b)
            assert [v is None for v in want] == [v is None for v in got]
            yield heads, gold, work, elems, b, want, got


def costs_of(values):
    """Costs of the valid moves: each value minus the smallest."""
    best = min(v for v in values if v is not None)
    return [v - best for v in values if v is not None]


def exact_future(mod, work, gold, elems, b):
    """F of a configuration by the exact DP: the smallest value delta + F(successor) over
    its moves (Bellman), 0 where no move is left."""
    vals = [v for v in mod.lrs_values(work, gold, elems, b) if v is not None]
    return min(vals) if vals else 0


@pytest.mark.parametrize("seed,n_docs", [(0, 30), pytest.param(1, 300, marks=pytest.mark.slow)])
@pytest.mark.parametrize("K", [1, 2, 3])
@pytest.mark.parametrize("exact_mode", [True, False])
def test_lr_spine_greedy_bounds(seed, n_docs, K, exact_mode):
    """greedy_bounds (lr_spine_oracle.pyx, "Settling successors without a DP"), on Docs of
    1-3 complete projective sentences of up to 20 words along random computations with deep
    stacks: the bounds hold (lost <= F <= the greedy computation's loss), the values are
    the exact DP's (exact mode) or keep the zero-cost set's contract (exact=False: the
    smallest value is F, the zero-cost moves are the exact ones, every other cost between 1
    and the exact one), and every way of valuing a successor is used: settled (lost =
    greedy loss), certified (δ + greedy loss = the state's F from the memo), bounded (a DP
    under the greedy loss), excluded (δ + lost above the bound) and Bellman's last move
    (eliminated): both modes run the same zero-cost pass (lr_spine_oracle.pyx, "Two
    phases"); the exact mode's second phase values what it only bounded."""
    mod = load_compiled("lr_spine_oracle")
    rng = random.Random(seed * 10 + K + 400)
    exact = mod.LRSWork(K)
    assert not exact.greedy_bounds      # the plain DP is the reference
    plain = mod.LRSWork(K, exact=exact_mode)    # the same mode without greedy_bounds: its work
    works = []
    states = 0

    def new_work():
        works.append(mod.LRSWork(K, exact=exact_mode, greedy_bounds=True))
        return works[-1]

    for heads, gold, work, elems, b, want, got in against_exact(
            mod, exact, K, rng, n_docs, 3, 20, new_work):
        mod.lrs_values(plain, gold, elems, b)
        low, up = mod.lrs_greedy_bounds(work, gold, elems, b)
        f = exact_future(mod, exact, gold, elems, b)
        assert low <= f <= up, (heads, elems, b, low, f, up)
        if exact_mode:
            assert got == want, (heads, elems, b, want, got)
        else:
            F, G = min(v for v in want if v is not None), min(v for v in got if v is not None)
            assert G == F, (heads, elems, b, want, got)
            assert all((g == 0) == (w == 0) and g <= w
                       for g, w in zip(costs_of(got), costs_of(want))), (heads, elems, b, want, got)
        states += 1
    counts = {name: sum(getattr(w, name) for w in works)
              for name in ("settled", "certified", "excluded", "bounded", "greedy_misses",
                           "eliminated")}
    print(f"K={K} exact={exact_mode}: {states} configurations, {counts}, "
          f"{sum(w.inserts for w in works):,} DP insertions (without greedy_bounds {plain.inserts:,})")
    assert counts["settled"] > 0 and counts["certified"] > 0 and counts["bounded"] > 0
    assert counts["greedy_misses"] == 0         # the DP is exact here: F <= greedy loss
    assert counts["excluded"] > 0 and counts["eliminated"] > 0
    assert sum(w.inserts for w in works) < plain.inserts


@pytest.mark.parametrize("seed,n_docs", [(0, 20), pytest.param(1, 200, marks=pytest.mark.slow)])
@pytest.mark.parametrize("K", [1, 2, 3])
def test_lr_spine_memo_is_never_stale(seed, n_docs, K):
    """What one LRSWork keeps between states (the memo of successor values, read back as F of
    the state: certified successors and Bellman's last move, lr_spine_oracle.pyx; the
    lower-pass cache) never changes a value: along random computations with deep stacks on
    pairs of Docs (1-3 complete projective sentences of up to 24 words) stepped in turn, as a
    batch steps its Docs, one LRSWork kept across every state gives, per state, the values
    of a fresh LRSWork (nothing kept), and of a kept one with Bellman's last move off. The
    kept work must use its memo (certified and eliminated > 0) for the check to mean
    anything."""
    from bruteforce import random_projective_tree
    mod = load_compiled("lr_spine_oracle")
    rng = random.Random(seed * 10 + K + 900)
    kept = mod.LRSWork(K, greedy_bounds=True)
    no_bellman = mod.LRSWork(K, greedy_bounds=True)
    no_bellman.bellman = False
    states = 0

    def doc():
        heads = []
        for _ in range(rng.randint(1, 3)):
            heads += [h + len(heads) for h in random_projective_tree(rng.randint(1, 24), rng)]
        return mod.LRSpineGold(heads), lr_spine_walk(len(heads), K, rng,
                                                     rng.choice([0.5, 0.8, 0.95]))

    for _ in range(n_docs // 2):
        walks = [doc(), doc()]
        while walks:
            gold, walk = walks[0]
            step = next(walk, None)
            if step is None:
                walks.pop(0)
                continue
            elems, b = step
            got = mod.lrs_values(kept, gold, elems, b)
            fresh = mod.lrs_values(mod.LRSWork(K, greedy_bounds=True), gold, elems, b)
            assert got == fresh, (gold, elems, b, fresh, got)
            assert mod.lrs_values(no_bellman, gold, elems, b) == fresh
            states += 1
            walks.append(walks.pop(0))
    print(f"K={K}: {states} states, certified {kept.certified}, eliminated {kept.eliminated}, "
          f"DP insertions {kept.inserts:,} (Bellman's last move off: {no_bellman.inserts:,})")
    assert kept.certified > 0 and kept.eliminated > 0 and no_bellman.eliminated == 0
    assert kept.inserts < no_bellman.inserts
