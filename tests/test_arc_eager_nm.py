"""arc_eager_nm (docs/systems/arc_eager_nm.md): the non-monotonic arc-eager system of spaCy's
parser on this package's StateC conventions, through the shared brute-force reference
(bruteforce.py): its moves, its exact oracle ("dynamic": the argument it rests on, then its
costs), and how far spaCy's approximate costs (oracle "spacy") are from the exact ones."""
import random

import pytest
import spacy
from spacy.pipeline._parser_internals.transition_system import TransitionSystem
from spacy.tokens import Doc

from bruteforce import BruteForce, check_costs, random_forest, sample_states, sentence_of
from spacy_dynoracle import load_compiled
from spacy_dynoracle.testing import Simulator


def exact_simulator(n, **options):
    """A Simulator of arc_eager_nm with the exact oracle (its default is "spacy")."""
    return Simulator("arc_eager_nm", n, **{"oracle": "dynamic", **options})


KINDS = ("projective", "nonprojective", "multi")


def test_left_replaces_a_head_and_reduce_unshifts_once():
    """The two non-monotonic moves, step by step: LEFT replaces the head RIGHT gave, REDUCE
    of a headless word with words below puts it back at the front of the buffer, and it
    cannot be SHIFTed again until the stack changed (no loop)."""
    sim = exact_simulator(4)
    sim.apply("SHIFT").apply("RIGHT")            # 0 -> 1
    assert sim.heads() == [-1, 0, -1, -1] and sim.stack() == [0, 1]
    sim.apply("LEFT")                            # 2 -> 1 replaces 0 -> 1
    assert sim.heads() == [-1, 2, -1, -1] and sim.stack() == [0] and sim.buffer() == [2, 3]
    sim.apply("SHIFT")                           # 2 on the stack, headless, 0 below
    sim.apply("REDUCE")                          # unshift 2
    assert sim.stack() == [0] and sim.buffer() == [2, 3] and sim.heads()[2] == -1
    assert "SHIFT" not in sim.actions()          # unshiftable until the stack changes
    assert sorted(sim.actions()) == ["LEFT", "RIGHT", "ROOT"]
    sim.apply("LEFT")                            # 2 -> 0: the stack changed, 2 reshiftable
    assert sim.stack() == [] and "SHIFT" in sim.actions()


def test_every_state_has_a_move_and_every_walk_ends_with_a_tree():
    """Random walks (the brute force asserts a valid move in every state too): every word
    gets a head, no cycle, and the walk is finite (at most 6n moves: each word is pushed
    and removed once, plus two moves per unshift, and a word is unshifted at most once per
    LEFT that makes it reshiftable, plus once)."""
    rng = random.Random(3)
    for _ in range(300):
        n = rng.randint(1, 9)
        starts = [rng.choice([0, 0, 1, -1]) for _ in range(n)] if rng.random() < 0.3 else None
        if starts:
            starts[0] = 1 if starts[0] == -1 else starts[0]
        sim = exact_simulator(n, sent_starts=starts)
        moves = 0
        while not sim.is_final():
            actions = sim.actions()
            assert actions, sim
            sim.apply(rng.choice(actions))
            moves += 1
            assert moves <= 6 * n, sim
        heads = sim.heads()
        assert -1 not in heads
        for i in range(n):      # no cycle: every word reaches a root
            seen = set()
            while heads[i] != i:
                assert i not in seen, heads
                seen.add(i)
                i = heads[i]
        if starts:              # preset boundaries respected: no arc across them
            sent = [0] * n
            for i in range(1, n):
                sent[i] = sent[i - 1] + (starts[i] == 1)
            assert all(sent[h] == sent[d] for d, h in enumerate(heads)), (starts, heads)


def test_bruteforce_key_holds_the_unshiftable_flags():
    """Two states with the same stack, buffer and arcs but different unshiftable flags have
    different valid moves, so the memoised search must tell them apart (Simulator.key)."""
    a = exact_simulator(3).apply("SHIFT").apply("SHIFT").apply("REDUCE")
    b = exact_simulator(3).apply("SHIFT")
    assert a.stack() == b.stack() and a.buffer() == b.buffer() and a.heads() == b.heads()
    assert set(a.actions()) != set(b.actions())
    assert a.key() != b.key()


def test_reaches_every_tree_arc_eager_reaches():
    """From the start, the non-monotonic system's best reachable loss is never worse than
    the monotonic arc_eager's (it can replay its every computation: RIGHT+REDUCE for an
    R word, unshift+RIGHT+REDUCE for the corrected REDUCE of an L word), and equal to it:
    both build every projective tree and only projective trees."""
    rng = random.Random(4)
    for _ in range(40):
        n = rng.randint(1, 6)
        gold = random_forest(n, rng, rng.choice(KINDS))
        nm = BruteForce(gold).minloss(exact_simulator(n))
        assert nm == BruteForce(gold).minloss(Simulator("arc_eager", n)), gold


def unshift_costs(n_states, seed, max_n):
    """On random reachable states whose s0 is headless with words below it: the exact cost
    (brute force) of REDUCE there, i.e. of unshifting s0. Returns (states, costly ones)."""
    rng = random.Random(seed)
    checked, costly = 0, []

    def new_case(kind):
        gold = random_forest(rng.randint(2, max_n), rng, kind)
        return gold, BruteForce(gold), exact_simulator(len(gold))

    for _, gold, bf, _, sim in sample_states(rng, 100 * n_states, KINDS, new_case):
        stack = sim.stack()
        if len(stack) < 2 or sim.heads()[stack[-1]] != -1:
            continue
        checked += 1
        cost = bf.minloss(sim.copy().apply("REDUCE")) - bf.minloss(sim)
        if cost:
            costly.append(f"gold={gold} {sim!r}: unshift costs {cost}")
        if checked == n_states:
            break
    return checked, costly


@pytest.mark.slow
def test_unshifting_is_never_costly_many():
    checked, costly = unshift_costs(6000, seed=9, max_n=7)
    print(f"unshifting REDUCE: {checked} states, {len(costly)} with a positive exact cost")
    assert checked == 6000 and not costly, costly[:3]


# ---- the exact oracle ("dynamic") ---------------------------------------------------------
# The argument (docs/systems/arc_eager_nm.md, "The exact oracle"): the completions of a state
# are the projective forests over its open words in which a stack word with a head (HEADED)
# takes no dependent on its left and as head the open word before it or a later one; the
# unshiftable marks do not enter. The tests check the argument's parts, then the costs, by
# exhaustive search.
EXACT_KINDS = ("projective", "nonprojective", "multi", "partial")


def gold_for(kind, n, rng):
    """Random gold of a kind; "partial": about 30% of the heads unknown (-1)."""
    if kind == "partial":
        heads = random_forest(n, rng, rng.choice(KINDS))
        return [-1 if rng.random() < 0.3 else h for h in heads]
    return random_forest(n, rng, kind)


def gold_presets(gold, rng):
    """Preset sentence starts for half the trees (None for the rest), one of four kinds in
    turn: the gold sentences (1 at each gold sentence start, -1 elsewhere), the same with
    about half left unknown (0), the gold starts unknown and the rest -1 (a RIGHT across a
    gold start stays valid, a sentence cannot end elsewhere), and random 1 / -1 / 0
    regardless of the gold. Partial gold gets the random kind only."""
    if rng.random() < 0.5:
        return None
    kind = 3 if -1 in gold else rng.randrange(4)
    if kind == 3:
        return [1] + [rng.choice([1, -1, 0]) for _ in gold[1:]]
    roots = [sentence_of(gold, d) for d in range(len(gold))]
    start = [d == 0 or roots[d] != roots[d - 1] for d in range(len(gold))]
    if kind == 2:
        return [1] + [0 if start[d] else -1 for d in range(1, len(gold))]
    starts = [1 if s else -1 for s in start]
    if kind == 1:
        starts = [s if d == 0 or rng.random() < 0.5 else 0 for d, s in enumerate(starts)]
    return starts


def exact_cases(n_states, seed, max_n=7, labels=False, **options):
    """Random reachable states (bruteforce.sample_states) of random gold of every kind of
    EXACT_KINDS, half of them with gold sentence starts preset; yields (kind, gold, the
    BruteForce, sim). labels: gold labels "a"/"b" and the Simulator's labelled classes."""
    rng = random.Random(seed)
    preset = {}

    def new_case(kind):
        gold = gold_for(kind, rng.randint(1, max_n), rng)
        starts = gold_presets(gold, rng)
        gold_labels = [rng.choice("ab") for _ in gold] if labels else None
        sim = exact_simulator(len(gold), sent_starts=starts,
                        labels=("a", "b") if labels else (), **options)
        bf = BruteForce(gold, gold_labels)
        preset[id(bf)] = starts is not None
        return gold, bf, sim

    for kind, gold, bf, _, sim in sample_states(rng, n_states, EXACT_KINDS, new_case):
        yield kind + (" preset" if preset[id(bf)] else ""), gold, bf, sim


def open_words(sim):
    """(items, headed): the open words in word order (stack, then buffer) and the stack
    words with a head."""
    heads = sim.heads()
    return sim.stack() + sim.buffer(), {w for w in sim.stack() if heads[w] >= 0}


def forest_bound(table, gold, sim, headed_constraint=True):
    """The best reachable loss by the argument, through the oracle module's block DP
    (NMOracleTable.block_best, no preset starts): popped words' loss + open words with a
    known gold head - the sum over gold blocks of the most gold arcs of a forest."""
    items, headed = open_words(sim)
    heads = sim.heads()
    popped_loss = sum(1 for w, g in enumerate(gold)
                      if g >= 0 and w not in items and heads[w] != g)
    best = 0
    for first, last in table.blocks:
        block = [w for w in items if first <= w <= last]
        if block:
            best += table.block_best(block, headed if headed_constraint else ())
    return popped_loss + sum(1 for w in items if gold[w] >= 0) - best


def completions_agreement(n_states, seed, headed_constraint=True, max_n=7):
    """States (and the states after each of their moves) whose best reachable loss by
    exhaustive search equals forest_bound's, and those that differ."""
    agree, differ = 0, []
    tables = {}
    rng = random.Random(seed)

    def new_case(kind):
        gold = gold_for(kind, rng.randint(1, max_n), rng)
        return gold, BruteForce(gold), exact_simulator(len(gold))

    NMOracleTable = load_compiled("arc_eager_nm_oracle").NMOracleTable
    for _, gold, bf, _, sim in sample_states(rng, n_states, EXACT_KINDS, new_case):
        table = tables.setdefault(tuple(gold), NMOracleTable(gold))
        for state in [sim] + [sim.copy().apply(a) for a in sim.actions()]:
            bound = forest_bound(table, gold, state, headed_constraint)
            if bf.minloss(state) == bound:
                agree += 1
            else:
                differ.append(f"gold={gold} {state!r}: exhaustive {bf.minloss(state)}, "
                              f"forests {bound}")
    return agree, differ


def test_completions_are_the_constrained_forests():
    """The argument's core, on the oracle module's own DP: the best reachable loss equals
    that of the best forest over the open words with the HEADED constraints; without them
    (the negative control) it does not, on these very states."""
    agree, differ = completions_agreement(60, seed=31, max_n=6)
    assert agree > 150 and not differ, differ[:3]
    agree, differ = completions_agreement(60, seed=31, headed_constraint=False, max_n=6)
    assert differ


def test_shift_and_unshift_never_cost():
    """Two consequences of the argument, by exhaustive search: SHIFT and the unshift leave
    the open words and what each may become as they were, so they never cost anything."""
    rng = random.Random(32)
    shifts = unshifts = 0
    for _, gold, bf, sim in exact_cases(100, seed=32, max_n=6):
        now = bf.minloss(sim)
        actions = sim.actions()
        if "SHIFT" in actions:
            shifts += 1
            assert bf.minloss(sim.copy().apply("SHIFT")) == now, (gold, sim)
        if "REDUCE" in actions and sim.heads()[sim.stack()[-1]] < 0:
            unshifts += 1
            assert bf.minloss(sim.copy().apply("REDUCE")) == now, (gold, sim)
    assert shifts > 30 and unshifts > 5


def unshiftable_marks(n_gold, seed, max_n=7):
    """Over every state an exhaustive search from the start visits: (groups of states equal
    but for their unshiftable marks, groups whose best reachable losses differ)."""
    rng = random.Random(seed)
    groups = differ = 0
    for _ in range(n_gold):
        gold = gold_for(rng.choice(EXACT_KINDS), rng.randint(2, max_n), rng)
        bf = BruteForce(gold)
        bf.minloss(exact_simulator(len(gold)))
        by_state = {}
        for key, loss in bf.memo.items():      # key: Simulator.key, the marks last
            by_state.setdefault(key[:-1], {})[key[-1]] = loss
        for losses in by_state.values():
            if len(losses) > 1:
                groups += 1
                differ += len(set(losses.values())) > 1
    return groups, differ


def test_unshiftable_marks_do_not_change_the_loss():
    """The marks restrict SHIFT only, never what can still be built: states that differ
    only in them have the same best reachable loss."""
    groups, differ = unshiftable_marks(12, seed=33, max_n=6)
    assert groups > 10 and differ == 0


def exactness(n_states, seed, max_n, labels=False):
    """check_costs on exact_cases: (states per kind, failures)."""
    per_kind, failures = {}, []
    for kind, gold, bf, sim in exact_cases(n_states, seed, max_n=max_n, labels=labels):
        per_kind[kind] = per_kind.get(kind, 0) + 1
        errors = check_costs(sim, bf)
        if errors:
            failures.append("\n  ".join(errors))
    return per_kind, failures


def test_dynamic_oracle_exact():
    per_kind, failures = exactness(200, seed=34, max_n=6)
    assert sum(per_kind.values()) >= 200 and not failures, failures[:3]


def test_dynamic_oracle_exact_labelled():
    """Labelled: RIGHT's label is the arc's until LEFT replaces it; the base's label term
    on LEFT and RIGHT, and the gold label of the arc a HEADED word has, keep it exact."""
    per_kind, failures = exactness(40, seed=35, max_n=4, labels=True)
    assert sum(per_kind.values()) >= 40 and not failures, failures[:3]


def varied_case(i, rng, min_n, max_n):
    """The i-th case of a run over varied gold: (gold, gold_labels, exact-oracle Simulator)
    with the gold of kind EXACT_KINDS[i] (cycling) of min_n..max_n words, preset starts for
    half of them (gold_presets) and labels for every third."""
    gold = gold_for(EXACT_KINDS[i % len(EXACT_KINDS)], rng.randint(min_n, max_n), rng)
    gold_labels = [rng.choice("ab") for _ in gold] if i % 3 == 0 else None
    sim = exact_simulator(len(gold), sent_starts=gold_presets(gold, rng),
                          labels=("a", "b") if gold_labels else ())
    return gold, gold_labels, sim


def shared_chart_mismatches(n_golds, seed, min_n=30, max_n=80):
    """Walks over random gold of min_n..max_n words (every kind of EXACT_KINDS, half with
    preset starts, a third labelled), half zero-cost and half random moves, unshifts
    included: on every state the costs with the open cuts and shared charts
    (arc_eager_nm_oracle.pyx, "Open cuts", "Shared charts") against the reference that
    computes every chart whole over the block's items (NMOracleTable.full_chart), against
    the shared charts without the cuts (no_cut), against the shared charts read for the
    last segment only (run_only: every span starting before the run computed), and
    against split loops that never stop at their cell's bound (no_bound), at a hinted
    split or after the first 16.
    Returns (states, unshifts, mismatches)."""
    rng = random.Random(seed)
    states = unshifts = 0
    mismatches = []
    for i in range(n_golds):
        gold, gold_labels, sim = varied_case(i, rng, min_n, max_n)
        table = sim._gold(gold, gold_labels).extra_obj      # the NMOracleTable costs read
        while not sim.is_final():
            costs = sim.costs(gold, gold_labels)
            table.full_chart = True
            reference = sim.costs(gold, gold_labels)
            table.full_chart = False
            table.no_cut = True
            uncut = sim.costs(gold, gold_labels)
            table.no_cut = False
            table.run_only = True
            run_only = sim.costs(gold, gold_labels)
            table.run_only = False
            table.no_bound = True
            unbounded = sim.costs(gold, gold_labels)
            table.no_bound = False
            states += 1
            if not costs == reference == uncut == run_only == unbounded:
                mismatches.append(f"gold={gold} {sim!r}: {costs} != reference {reference} "
                                  f"or without the cuts {uncut} or the run only {run_only} "
                                  f"or without the split bounds {unbounded}")
            cheapest = min(costs.values())
            action = rng.choice([a for a, c in costs.items() if c == cheapest]
                                if rng.random() < 0.5 else sorted(costs))
            stack = sim.stack()
            unshifts += action == "REDUCE" and sim.heads()[stack[-1]] < 0
            sim.apply(action)
    return states, unshifts, mismatches


def test_shared_charts_equal_the_whole_chart_on_long_sentences():
    """The open cuts, and the segments of untouched words read from the gold block's
    shared chart, give the costs of the chart computed whole over the block's items, on
    every state of walks over longer gold (30-80 words)."""
    states, unshifts, mismatches = shared_chart_mismatches(24, seed=41)
    assert states > 3000 and unshifts > 100 and not mismatches, mismatches[:2]


def cut_path_mismatches(n_golds, seed, min_n=2, max_n=40):
    """spaCy's update cuts a long Doc along get_oracle_sequence_from_state (the first
    zero-cost class in class order): arc_eager_nm's takes SHIFT (class 0, its
    cut_path_free_class) without the exact costs wherever it is valid. Against spaCy's
    own path (TransitionSystem's), which computes the costs in every state, from the
    initial state and from a random reachable one (gold of every kind, half with preset
    starts, a third labelled). Returns (paths, moves, mismatches, the states whose costs
    each path computed, and the fast path's moves other than SHIFT)."""
    rng = random.Random(seed)
    paths = moves = fast_states = full_states = not_shift = 0
    mismatches = []
    for i in range(n_golds):
        gold, gold_labels, sim = varied_case(i, rng, min_n, max_n)
        dyn_gold = sim._gold(gold, gold_labels)
        for start in (sim, random_state_of(sim, gold, rng)):
            before = sim.moves.oracle_counts()["states"]
            fast = sim.moves.get_oracle_sequence_from_state(start.state.copy(), dyn_gold)
            middle = sim.moves.oracle_counts()["states"]
            full = TransitionSystem.get_oracle_sequence_from_state(
                sim.moves, start.state.copy(), dyn_gold)
            fast_states += middle - before
            full_states += sim.moves.oracle_counts()["states"] - middle
            paths += 1
            moves += len(full)
            not_shift += sum(1 for choice in fast if choice != 0)
            if fast != full:
                mismatches.append(f"gold={gold} from {start!r}: {fast} != {full}")
    return paths, moves, mismatches, (fast_states, full_states, not_shift)


def random_state_of(sim, gold, rng):
    """A state reached from sim by random valid moves (up to 2n)."""
    state = sim.copy()
    for _ in range(rng.randint(0, 2 * sim.n_words)):
        if state.is_final():
            break
        state.apply(rng.choice(state.actions()))
    return state


def test_cut_path_takes_shift_without_the_costs():
    paths, moves, mismatches, states = cut_path_mismatches(60, seed=42)
    assert paths == 120 and moves > 2000 and not mismatches, mismatches[:2]
    # spaCy's path computes the costs in every state; the fast one only where SHIFT is
    # not valid, i.e. where its move is not SHIFT
    fast_states, full_states, not_shift = states
    assert full_states == moves and fast_states == not_shift < moves, states


def guard_soundness(n_states, seed, budget, max_n=6):
    """exact_cases with a budget of chart cells (system option `budget`) so small that the
    guard trips: (guard states, exact states, failures). A guard state's costs must be
    sound against exhaustive search (0 <= cost <= exact cost, 0 on every optimal move);
    every other state's exact."""
    guards = exact = 0
    failures = []
    for _, gold, bf, sim in exact_cases(n_states, seed, max_n=max_n, budget=budget):
        costs = sim.costs(gold)
        if not sim.moves.last_costs_were_bounded:
            exact += 1
            failures += check_costs(sim, bf)
            continue
        guards += 1
        assert sim.moves.last_oracle_path == "guard"
        now = bf.minloss(sim)
        for action, cost in costs.items():
            true = bf.minloss(sim.copy().apply(action)) - now
            if not 0 <= cost <= true or (true == 0 and cost != 0):
                failures.append(f"gold={gold} {sim!r} {action}: guard cost {cost}, exact {true}")
    return guards, exact, failures


def test_guard_costs_are_sound():
    """Over budget every move costs 0 (a lower bound of every cost, the cost of every
    optimal move); under it the costs stay exact; both occur with a budget of 6 cells."""
    guards, exact, failures = guard_soundness(200, seed=42, budget=6)
    assert guards > 20 and exact > 100 and not failures, failures[:3]
    sim = exact_simulator(3, budget=6)
    assert set(sim.moves.oracle_stats()) >= {"states", "guard", "cells", "max_cells"}


def test_spacy_costs_fail_the_same_check():
    """Negative control of the check itself: spaCy's approximate costs, through the same
    states and check_costs, are reported wrong."""
    failures = [e for _, gold, bf, sim in exact_cases(30, seed=36, max_n=5, oracle="spacy")
                if (e := check_costs(sim, bf))]
    assert failures


def test_static_move_walks_build_a_best_tree():
    """target="static"'s canonical move (ArcEagerNM.static_move): following it from the start
    builds a tree of the best reachable loss, monotonically (no unshift: two moves a
    word)."""
    rng = random.Random(41)
    for _ in range(40):
        gold = random_forest(rng.randint(1, 6), rng, rng.choice(KINDS))
        sim = exact_simulator(len(gold))
        moves = 0
        while not sim.is_final():
            sim.apply(sim.static_move(gold))
            moves += 1
        assert moves == 2 * len(gold), (gold, moves)
        loss = sum(h != g for h, g in zip(sim.heads(), gold))
        assert loss == BruteForce(gold).minloss(exact_simulator(len(gold))), gold


def defers(sim, action):
    """SHIFT, or REDUCE of a headless s0 (the unshift): the moves that decide nothing."""
    move = action.split("-")[0]
    return move == "SHIFT" or (move == "REDUCE" and sim.heads()[sim.stack()[-1]] < 0)


def repairs(sim, action):
    """LEFT of an s0 that has a head: it replaces the arc RIGHT gave."""
    return action.split("-")[0] == "LEFT" and sim.heads()[sim.stack()[-1]] >= 0


@pytest.mark.parametrize("defer", ["last", "repairs_last"])
@pytest.mark.parametrize("labels,n_states,max_n", [(False, 200, 6), (True, 40, 4)])
def test_defer_last_target_commits_wherever_committing_is_optimal(labels, n_states, max_n,
                                                                  defer):
    """system_options defer="last" (system_base.defer_last_target), from random reachable
    states by exhaustive search: the training target is the brute force's zero-cost set minus
    SHIFT and the unshift exactly when a committing zero-cost move (RIGHT, LEFT, popping
    REDUCE, ROOT) exists, else the whole zero-cost set; so it is never empty and always
    optimal. defer="repairs_last": of the committing moves, the repairing LEFT only when no
    other is optimal. Negative control: the default target (defer="free") fails the same
    check, as does dropping SHIFT and the unshift unconditionally (the target would be
    empty)."""
    narrowed = deferring_only = repairs_dropped = 0
    for _, gold, bf, sim in exact_cases(n_states, seed=51, max_n=max_n, labels=labels,
                                        defer=defer):
        gold_labels = bf.gold_labels if labels else [None] * len(gold)
        exact = bf.exact_costs(sim, sim.actions(labelled=labels))
        zero = {a for a, c in exact.items() if c == 0}
        committing = {a for a in zero if not defers(sim, a)}
        deciding = {a for a in committing if not repairs(sim, a)}
        expected = (deciding if defer == "repairs_last" else set()) or committing or zero
        repairs_dropped += expected != (committing or zero)

        def target_of(s):
            """The zero-cost unlabelled moves (labelled classes) of s's training target."""
            costs = s.training_costs(gold, gold_labels)
            if labels:
                return {a for a, c in costs.items() if c <= 0}
            return {a.split("-")[0] for a, c in costs.items() if c <= 0}

        target = target_of(sim)
        assert target and target == expected, (gold, sim, zero, target)
        sim.moves.cfg["defer"] = "free"          # the same system with the default target
        assert target_of(sim) == zero, (gold, sim)
        sim.moves.cfg["defer"] = defer
        narrowed += target != zero
        deferring_only += not committing
    # the control: the default target differs from defer="last"'s in many states, and
    # dropping the deferring moves unconditionally would leave an empty target in some
    print(f"defer={defer}: {narrowed} of {n_states} states narrowed, {deferring_only} with "
          f"only deferring moves optimal, {repairs_dropped} with a repair dropped")
    assert narrowed >= n_states // 10 and deferring_only > 0, (narrowed, deferring_only)
    if defer == "repairs_last" and not labels:
        assert repairs_dropped > 0


@pytest.mark.slow
def test_dynamic_oracle_exact_many():
    """docs/systems/arc_eager_nm.md's count: >= 6,000 states, n <= 7, every kind of gold,
    half with sentence starts preset; and 1,000 labelled states, n <= 5."""
    per_kind, failures = exactness(6000, seed=37, max_n=7)
    print(f"arc_eager_nm dynamic: {sum(per_kind.values())} states, {len(failures)} wrong; "
          + ", ".join(f"{k} {v}" for k, v in sorted(per_kind.items())))
    assert sum(per_kind.values()) >= 6000 and not failures, failures[:3]
    per_kind, failures = exactness(1000, seed=38, max_n=5, labels=True)
    print(f"labelled: {sum(per_kind.values())} states, {len(failures)} wrong")
    assert sum(per_kind.values()) >= 1000 and not failures, failures[:3]


@pytest.mark.slow
def test_argument_many():
    """docs/systems/arc_eager_nm.md's counts for the argument's parts."""
    agree, differ = completions_agreement(1000, seed=39)
    _, control = completions_agreement(1000, seed=39, headed_constraint=False)
    groups, marks_differ = unshiftable_marks(150, seed=40)
    print(f"forests: {agree} states agree, {len(differ)} differ; without the HEADED "
          f"constraints {len(control)} differ; marks: {groups} groups, {marks_differ} differ")
    assert not differ and control and not marks_differ


# ---- spaCy's approximate costs against exhaustive search ------------------------------------
def spacy_cost_disagreement(n_states, seed, max_n=7, per_gold=8):
    """On random reachable states (half of each walk's moves zero-cost under the costs, half
    random) of random gold of 1..max_n words of each kind: per gold kind, how often the
    training target of spaCy's costs (the cheapest valid moves, as the base normalises them)
    differs from the set of truly optimal moves, and how: an optimal move missing, a costly
    move admitted; and how often the cost vector differs from the exact one."""
    rng = random.Random(seed)
    out = {k: dict(states=0, zero_differs=0, missing_optimal=0, admits_costly=0,
                   costs_differ=0, cheapest_not_zero=0) for k in KINDS}

    def new_case(kind):
        gold = random_forest(rng.randint(1, max_n), rng, kind)
        return gold, BruteForce(gold), Simulator("arc_eager_nm", len(gold), oracle="spacy")

    for kind, gold, bf, _, sim in sample_states(rng, n_states, KINDS, new_case, per_gold):
        costs = sim.costs(gold)
        low = min(costs.values())
        target = {a for a, c in costs.items() if c == low}
        exact = bf.exact_costs(sim, costs)
        optimal = {a for a, c in exact.items() if c == 0}
        r = out[kind]
        r["states"] += 1
        r["zero_differs"] += target != optimal
        r["missing_optimal"] += bool(optimal - target)
        r["admits_costly"] += bool(target - optimal)
        r["costs_differ"] += {a: c - low for a, c in costs.items()} != exact
        r["cheapest_not_zero"] += low != 0
        for a in optimal - target:
            r["missing " + a] = r.get("missing " + a, 0) + 1
        for a in target - optimal:
            r["admitted " + a] = r.get("admitted " + a, 0) + 1
    return out


def print_disagreement(out):
    keys = {k for r in out.values() for k in r}
    total = {k: sum(r.get(k, 0) for r in out.values()) for k in keys}
    for kind, r in list(out.items()) + [("all", total)]:
        s = r["states"]
        print(f"  {kind:14s} {s:5d} states: target != optimal {r['zero_differs']:5d} "
              f"({r['zero_differs'] / s:.1%}); an optimal move missing {r['missing_optimal']} "
              f"({r['missing_optimal'] / s:.1%}); a costly move admitted {r['admits_costly']} "
              f"({r['admits_costly'] / s:.1%}); costs differ {r['costs_differ'] / s:.1%}; "
              f"cheapest raw cost != 0 {r['cheapest_not_zero']}")
        print("    by move: " + ", ".join(f"{k} {r[k]}" for k in sorted(r)
                                         if k.startswith(("missing ", "admitted "))))
    return total


def test_spacy_costs_are_measured_against_the_brute_force():
    """The measurement can fail both ways: spaCy's costs do disagree with exhaustive search
    (it is an approximation), and they agree in most states (a broken port would not)."""
    total = print_disagreement(spacy_cost_disagreement(300, seed=1, max_n=6))
    assert 0 < total["zero_differs"] < total["states"] / 2


@pytest.mark.slow
def test_spacy_costs_against_the_brute_force_many():
    """docs/systems/arc_eager_nm.md's table: >= 6,000 states, n <= 7 (40 states per gold
    tree, so that one exhaustive search serves many states: a few CPU minutes)."""
    total = print_disagreement(spacy_cost_disagreement(6000, seed=5, per_gold=40))
    assert total["states"] >= 6000


# ---- end to end through the factory ---------------------------------------------------------
@pytest.mark.parametrize("oracle", ["dynamic", "spacy"])
def test_trains_saves_and_loads_through_the_factory(tmp_path, oracle):
    """nlp.add_pipe("dynoracle_parser", transition_system="arc_eager_nm"): its default oracle
    is "spacy", which trains on lifted gold (as spaCy's parser); the exact "dynamic" trains on
    raw non-projective gold. An update gives a finite loss, the parse gives every word a
    head, and a saved pipeline parses the same."""
    from synthetic import component_config, make_examples, train

    nlp = spacy.blank("xx")
    config = component_config(transition_system="arc_eager_nm")
    if oracle != "spacy":
        config["oracle"] = oracle
    nlp.add_pipe("dynoracle_parser", config=config)
    parser = nlp.get_pipe("dynoracle_parser")
    assert parser.moves.oracle == oracle
    assert parser.moves.projectivize == (oracle == "spacy")
    examples = make_examples(nlp.vocab, 12, seed=2, kind="nonprojective", sents_per_doc=2)
    losses = train(nlp, examples, epochs=2)
    assert all(0 < loss < float("inf") for loss in losses)
    words = [t.text for t in examples[0].reference]
    doc = nlp(Doc(nlp.vocab, words=words))
    assert all(0 <= t.head.i < len(doc) for t in doc)
    nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")
    assert loaded.get_pipe("dynoracle_parser").moves.name == "arc_eager_nm"
    again = loaded(Doc(loaded.vocab, words=words))
    assert [t.head.i for t in again] == [t.head.i for t in doc]
    assert [t.dep_ for t in again] == [t.dep_ for t in doc]


# ---- the port of spaCy's costs against spaCy's own ------------------------------------------
def projective_sentences(rng, n_sents, max_len):
    """Random projective gold of n_sents contiguous sentences (spaCy lifts non-projective
    gold, the Simulator does not: projective gold is where the two read the same tree)."""
    heads = []
    for _ in range(n_sents):
        start = len(heads)
        heads += [h + start for h in random_forest(rng.randint(1, max_len), rng, "projective")]
    return heads


def gold_sentence_start(gold, b):
    """No gold arc joins a word left of b to a word at or right of b (written here, not
    taken from system_base.gold_sentence_starts_at, so that the test checks it)."""
    return all((h < b) == (i < b) for i, h in enumerate(gold))


def boundary_terms(gold, stack, buffer, spacy_queue):
    """What the port adds to spaCy's costs in a state (docs/systems/arc_eager_nm.md, "The
    `spacy` costs"), per move: spaCy's push_cost term [BREAK valid and B(1) starts a gold
    sentence] moves to [b0 starts a gold sentence, stack not empty] on SHIFT, RIGHT and LEFT;
    BREAK's [B(1) starts no gold sentence] becomes ROOT's [b0 starts no gold sentence]."""
    b0 = buffer[0] if buffer else None
    crossing = bool(stack) and b0 is not None and gold_sentence_start(gold, b0)
    spacy_break = (len(spacy_queue) >= 2 and spacy_queue[1] == spacy_queue[0] + 1
                   and gold_sentence_start(gold, spacy_queue[1]))
    return {"SHIFT": crossing - spacy_break, "RIGHT": crossing - spacy_break,
            "LEFT": crossing, "REDUCE": 0,
            "ROOT": b0 is not None and not gold_sentence_start(gold, b0)}


def spacy_cost_mismatches(n_golds, seed, max_sents, with_terms=True, perturb=None,
                          labelled=False):
    """Random walks over random projective gold of 1..max_sents sentences (each step a
    zero-cost move of the port or, half the time, any valid move), spaCy's own ArcEager driven
    through the same moves (ROOT is spaCy's REDUCE of the word alone on the stack; no BREAK,
    no preset starts): per state and valid move, the port's raw cost against spaCy's
    ArcEager.get_cost plus boundary_terms (with_terms=False: plus nothing). Labels all "dep"
    (no label term). perturb(sim, gold, costs) may change the port's costs first (the
    negative control). labelled=True: gold labels "a" / "b", and per labelled class the
    costs training gets (the base's label term, normalised so the cheapest valid class costs
    0) against spaCy's plus the terms, which must then differ by one constant per state (the
    normalisation). Returns (costs compared, mismatches)."""
    from spacy.pipeline._parser_internals.arc_eager import ArcEager
    from spacy.training import Example
    from spacy.vocab import Vocab

    spacy_name = {"SHIFT": "S", "RIGHT": "R-dep", "LEFT": "L-dep", "REDUCE": "D", "ROOT": "D"}
    rng = random.Random(seed)
    compared, mismatches = 0, []
    for _ in range(n_golds):
        gold = projective_sentences(rng, rng.randint(1, max_sents), 5)
        n = len(gold)
        if n < 2:
            continue
        vocab = Vocab()
        words = [f"w{i}" for i in range(n)]
        deps = ["ROOT" if h == i else rng.choice("ab") if labelled else "dep"
                for i, h in enumerate(gold)]
        eg = Example(Doc(vocab, words=words), Doc(vocab, words=words, heads=gold, deps=deps))
        moves = ArcEager(vocab.strings, ArcEager.get_actions(examples=[eg], min_freq=1))
        state = moves.init_batch([eg.predicted])[0]
        spacy_gold = moves.init_gold(state, eg)
        classes = [moves.get_class_name(i) for i in range(moves.n_moves)]
        sim = Simulator("arc_eager_nm", n, oracle="spacy", labels=["a", "b"] if labelled else [])
        while not sim.is_final():
            ours = sim.costs(gold)
            if perturb is not None:
                perturb(sim, gold, ours)
            terms = boundary_terms(gold, sim.stack(), sim.buffer(), list(state.queue))
            spacy_gold.update(state)
            if labelled:
                shifts = set()
                for clas, cost in sim.costs(gold, deps).items():
                    move, _, label = clas.partition("-")
                    name = spacy_name[move].split("-")[0] + (f"-{label}" if label else "")
                    if name in classes:
                        theirs = moves.get_cost(state, spacy_gold, classes.index(name))
                        shifts.add(cost - theirs - terms[move])
                        compared += 1
                if len(shifts) > 1:
                    mismatches.append((gold, deps, repr(sim), shifts))
            for move, cost in ([] if labelled else ours.items()):
                theirs = moves.get_cost(state, spacy_gold, classes.index(spacy_name[move]))
                compared += 1
                if cost != theirs + (terms[move] if with_terms else 0):
                    mismatches.append((gold, repr(sim), move, cost, theirs))
            low = min(ours.values())
            move = rng.choice(sorted(m for m, c in ours.items() if c == low or rng.random() < 0.5))
            sim.apply(move)
            moves.apply_transition(state, spacy_name[move])
            assert sim.stack() == [state.S(i) for i in range(state.stack_depth() - 1, -1, -1)]
    return compared, mismatches


def test_spacy_costs_equal_spacys_own_but_for_the_boundary_terms():
    """The `spacy` costs are spaCy 3.8's, on one-sentence and multi-sentence projective gold:
    every valid move's cost equals spaCy's ArcEager.get_cost after the same moves, plus the
    documented boundary terms and nothing else; with labels, every labelled class's training
    cost equals spaCy's plus the terms, up to the normalisation. Negative controls: without
    the terms the multi-sentence states differ, and so does a port with one of spaCy's terms
    dropped (the clobbered-arc term of LEFT, taken off the port's costs here)."""
    compared, mismatches = spacy_cost_mismatches(80, seed=12, max_sents=3)
    assert compared > 1000 and not mismatches, mismatches[:3]
    _, without_terms = spacy_cost_mismatches(80, seed=12, max_sents=3, with_terms=False)
    assert len(without_terms) > 50

    def drop_clobber_term(sim, gold, costs):
        stack = sim.stack()
        if "LEFT" in costs and len(stack) >= 2 and sim.heads()[stack[-1]] == stack[-2] \
                and gold[stack[-1]] == stack[-2]:
            costs["LEFT"] -= 1

    _, perturbed = spacy_cost_mismatches(80, seed=12, max_sents=3, perturb=drop_clobber_term)
    assert perturbed
    compared, mismatches = spacy_cost_mismatches(60, seed=13, max_sents=3, labelled=True)
    assert compared > 2000 and not mismatches, mismatches[:3]


def test_spacy_costs_segment_at_gold_boundaries():
    """Where a gold sentence ends (its root alone on the stack, b0 the next sentence's
    first word) ROOT is the one zero-cost move, and inside a gold sentence a ROOT costs 1
    more than spaCy's REDUCE of the word alone on the stack: the terms that make a model
    learn to end sentences (the converged run before them never did: arc_eager_nm.md)."""
    gold = [1, 1, 1, 4, 4]                        # sentences 0-2 and 3-4
    sim = Simulator("arc_eager_nm", 5, oracle="spacy")
    for move in ("SHIFT", "LEFT", "SHIFT", "RIGHT", "REDUCE"):
        sim.apply(move)
    assert sim.stack() == [1] and sim.buffer() == [3, 4]
    assert sim.costs(gold) == {"SHIFT": 1, "RIGHT": 2, "LEFT": 1, "ROOT": 0}
    sim = Simulator("arc_eager_nm", 5, oracle="spacy")
    sim.apply("SHIFT").apply("LEFT").apply("SHIFT")          # stack [1], b0 = 2 (1's dependent)
    assert sim.costs(gold)["ROOT"] == 2                        # its dependent + the boundary
