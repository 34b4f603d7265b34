"""The tabulation (spacy_dynoracle.tabulation, docs/specs/dp_tabulation.md) against exhaustive
search over the Simulator's actions (bruteforce.search_computations), for random window
scores: docs/specs/dp_tabulation.md §9 tests 1 (Viterbi), 2 (backtrace replays to the score), 3
(inside = log-sum-exp over all computations), 4 (counting: every computation derived exactly once),
5 (arc marginals) and 8 (edge cases n = 1, 2); plus the gradients (expected move counts) by finite
differences, and a negative control showing that the comparison can fail.

The scorers below read each state's window straight off the Simulator (stack, buffer,
heads), independently of the chart's index arithmetic.
"""
import functools
import math
import random

import numpy as np
import pytest

from bruteforce import oracle_walk, search_computations
from spacy_dynoracle import load_compiled
from spacy_dynoracle.testing import Simulator

tab = load_compiled("tabulation")

# docs/specs/dp_tabulation.md §9: 1, 1, 3, 13, 67, 381, 2307 complete computations for n = 1..7
# tokens *including* the spec's ROOT token, i.e. for our n - 1 words.
SPEC_COUNTS = {1: 1, 2: 3, 3: 13, 4: 67, 5: 381, 6: 2307}


def _system_available(name):
    try:
        Simulator(name, 1)
        return True
    except (ImportError, AttributeError, ValueError):
        return False


# ---- random tables and the window scorers ------------------------------------------------------
def hybrid_tables(n, rng, integer, ctx=False, invalid=0.0, window2=False):
    N1 = n + 1

    def draw(*shape):
        a = rng.integers(-6, 7, size=shape).astype(float) if integer else rng.uniform(-2, 2, size=shape)
        if invalid:
            a[rng.random(shape) < invalid] = -np.inf
        return a

    s1 = () if window2 else (N1,)       # window2: left/right read (s0, b0) only
    return {"shift": draw(N1, N1, N1) if ctx else draw(N1, N1), "left": draw(*s1, N1, N1),
            "right": draw(*s1, N1, N1), "root": draw(N1, N1)}


def hybrid_scorer(t):
    n = t["root"].shape[0] - 1

    def score(sim, action):
        st, buf = sim.stack(), sim.buffer()
        s0 = st[-1] if st else n
        s1 = st[-2] if len(st) >= 2 else n
        b0 = buf[0] if buf else n
        if action == "SHIFT":
            return t["shift"][s1, s0, b0] if t["shift"].ndim == 3 else t["shift"][s0, b0]
        if action == "ROOT":
            return t["root"][s0, b0]
        a = t[action.lower()]
        return a[s1, s0, b0] if a.ndim == 3 else a[s0, b0]

    return score


def eager_tables(n, rng, integer, flagged=True, window2=False, ctx=False):
    N1 = n + 1

    def draw(*shape):
        return rng.integers(-6, 7, size=shape).astype(float) if integer else rng.uniform(-2, 2, size=shape)

    f = (2,) if flagged else ()
    c = (N1,) if ctx else ()            # context chart: shift/right also read s1
    if window2:                         # every move reads (s0, b0) only
        return {"shift": draw(N1, N1), "right": draw(N1, N1), "left": draw(N1, N1),
                "reduce": draw(N1, N1), "root": draw(N1, N1)}
    return {"shift": draw(*f, *c, N1, N1), "right": draw(*f, *c, N1, N1), "left": draw(N1, N1, N1),
            "reduce": draw(*f, N1, N1, N1), "root": draw(N1, N1)}


def eager_scorer(t, ctx=False):
    n = t["root"].shape[0] - 1

    def score(sim, action):
        st, buf, heads = sim.stack(), sim.buffer(), sim.heads()
        s0 = st[-1] if st else n
        s1 = st[-2] if len(st) >= 2 else n
        b0 = buf[0] if buf else n
        flag = int(bool(st) and heads[s0] != -1)       # s0 pushed by RIGHT
        if action in ("SHIFT", "RIGHT"):
            a = t[action.lower()]
            if ctx:
                return a[flag, s1, s0, b0] if a.ndim == 4 else a[s1, s0, b0]
            return a[flag, s0, b0] if a.ndim == 3 else a[s0, b0]
        if action == "REDUCE":
            a = t["reduce"]
            return {4: lambda: a[flag, s1, s0, b0], 3: lambda: a[s1, s0, b0],
                    2: lambda: a[s0, b0]}[a.ndim]()
        if action == "ROOT":
            return t["root"][s0, b0]
        a = t["left"]
        return a[s1, s0, b0] if a.ndim == 3 else a[s0, b0]

    return score


SYSTEMS = {
    "arc_hybrid": (hybrid_tables, hybrid_scorer, tab.hybrid_viterbi, tab.hybrid_inside_outside,
                   ("shift", "left", "right", "root")),
    "arc_eager": (eager_tables, eager_scorer, tab.eager_viterbi, tab.eager_inside_outside,
                  ("shift", "right", "left", "reduce", "root")),
    # arc_standard reads the same windows as arc_hybrid: shift[s0, b0], left/right[s1, s0, b0]
    # (LEFT: s0 -> s1, RIGHT: s1 -> s0), root[s0, b0]
    "arc_standard": (hybrid_tables, hybrid_scorer, tab.standard_viterbi,
                     tab.standard_inside_outside, ("shift", "left", "right", "root")),
}


def variants():
    out = [("arc_hybrid", {}, ""), ("arc_hybrid", {"ctx": True}, "-context"),
           ("arc_eager", {}, "-flags"), ("arc_eager", {"flagged": False}, "-noflags"),
           ("arc_eager", {"ctx": True}, "-context"),
           ("arc_eager", {"ctx": True, "flagged": False}, "-context-noflags"),
           ("arc_standard", {}, ""), ("arc_hybrid", {"window2": True}, "-s0b0"),
           ("arc_eager", {"window2": True}, "-s0b0"), ("arc_standard", {"window2": True}, "-s0b0")]
    return [pytest.param(s, o, id=s + suffix,
                         marks=[] if _system_available(s) else
                         pytest.mark.skip(reason=f"{s} is not built")) for s, o, suffix in out]


def kernels(system, opts=None):
    """(viterbi, inside_outside) of a variant: arc_eager's context chart is a keyword (its
    flagged plain tables and unflagged context tables both have 3 axes); arc_hybrid's is
    selected by the 3-D shift table."""
    _, _, vit, io, _ = SYSTEMS[system]
    if system == "arc_eager" and (opts or {}).get("ctx"):
        return functools.partial(vit, context=True), functools.partial(io, context=True)
    return vit, io


def scorer_for(system, tables, opts=None):
    if system == "arc_eager":
        return eager_scorer(tables, ctx=bool((opts or {}).get("ctx")))
    return SYSTEMS[system][1](tables)


def run_dp(system, tables, opts=None):
    order = SYSTEMS[system][4]
    vit, io = kernels(system, opts)
    args = [tables[k] for k in order]
    best, moves = vit(*args)
    logZ, marg, grads = io(*args, gradients=True)
    return best, moves, logZ, marg, grads


def replay(system, n, moves, score):
    sim = Simulator(system, n)
    total = 0.0
    for name in tab.move_names(moves):
        assert name in sim.actions(), f"decoded {name} is invalid in {sim!r}"
        total += score(sim, name)
        sim.apply(name)
    assert sim.is_final(), f"decoded sequence does not end in a final state: {sim!r}"
    return total, sim.heads()


def check_case(system, n, rng, integer, **opts):
    """All of docs/specs/dp_tabulation.md §9 tests 1-5 on one random input; returns the brute-force
    result."""
    make = SYSTEMS[system][0]
    tables = make(n, rng, integer, **opts)
    score = scorer_for(system, tables, opts)
    bf = search_computations(Simulator(system, n), score)
    best, moves, logZ, marg, _ = run_dp(system, tables, opts)
    # 1. Viterbi == max over every complete computation (integers: exact)
    if integer:
        assert best == bf["best"], (system, n, best, bf["best"])
    else:
        assert math.isclose(best, bf["best"], rel_tol=1e-12, abs_tol=1e-12)
    # 2. the backtrace replays through the real transitions to the Viterbi score
    assert len(moves) == 2 * n
    replayed, _ = replay(system, n, moves, score)
    assert math.isclose(replayed, best, rel_tol=1e-12, abs_tol=1e-9)
    # 3. inside == log-sum-exp over every complete computation
    assert math.isclose(logZ, bf["logZ"], rel_tol=1e-9, abs_tol=1e-9), (logZ, bf["logZ"])
    # 5. arc marginals == brute-force expectations; rows sum to 1
    assert np.allclose(marg, np.array(bf["marginals"]), atol=1e-9)
    assert np.allclose(marg.sum(axis=1), 1.0, atol=1e-9)
    assert (marg >= -1e-12).all()
    return bf


# ---- the tests ----------------------------------------------------------------------------------
@pytest.mark.parametrize("system,opts", variants())
def test_viterbi_inside_marginals_match_bruteforce(system, opts):
    rng = np.random.default_rng(8)
    for n in range(1, 7):
        reps = 4 if n <= 5 else 1
        for r in range(reps):
            check_case(system, n, rng, integer=bool(r % 2 == 0), **opts)


def test_n7():
    """One n = 7 case in the default suite (the slow suite has many, for every variant)."""
    check_case("arc_hybrid", 7, np.random.default_rng(7), integer=True)


@pytest.mark.parametrize("system", [p for p in SYSTEMS if _system_available(p)])
def test_counting(system):
    """docs/specs/dp_tabulation.md §9 test 4: with all scores 0, exp(logZ) is the number of complete
    computations; it must equal the brute-force count (and, for arc-hybrid, the spec's published
    counts)."""
    make, scorer, _, io, order = SYSTEMS[system]
    for n in range(1, 7):
        tables = {k: np.zeros_like(v) for k, v in make(n, np.random.default_rng(0), True).items()}
        bf = search_computations(Simulator(system, n), scorer(tables))
        logZ, _, _ = io(*[tables[k] for k in order], marginals=False)
        assert round(math.exp(logZ)) == bf["count"]
        assert math.isclose(math.exp(logZ), bf["count"], rel_tol=1e-9)
        if system == "arc_hybrid" or (system == "arc_standard" and n <= 5):
            # docs/specs/dp_tabulation.md §9 (arc-standard: n <= 6 tokens)
            assert bf["count"] == SPEC_COUNTS[n]


def test_invalid_moves_as_minus_inf():
    """-inf entries (invalid windows) are the semiring zero: the DP still matches search."""
    rng = np.random.default_rng(3)
    for n in range(1, 7):
        for ctx in (False, True):
            tables = hybrid_tables(n, rng, integer=False, ctx=ctx, invalid=0.2)
            score = hybrid_scorer(tables)
            bf = search_computations(Simulator("arc_hybrid", n), score)
            best, moves, logZ, marg, _ = run_dp("arc_hybrid", tables)
            if bf["best"] == -math.inf:
                assert best == -math.inf and moves is None and logZ == -math.inf
                continue
            assert math.isclose(best, bf["best"], rel_tol=1e-12)
            assert math.isclose(replay("arc_hybrid", n, moves, score)[0], best, rel_tol=1e-12)
            assert math.isclose(logZ, bf["logZ"], rel_tol=1e-9)
            assert np.allclose(marg, np.array(bf["marginals"]), atol=1e-9)


@pytest.mark.parametrize("system,opts", variants())
def test_gradients_are_expected_move_counts(system, opts):
    """d logZ / d table (docs/specs/dp_tabulation.md §6: expected transition counts) against central
    differences."""
    make, order = SYSTEMS[system][0], SYSTEMS[system][4]
    io = kernels(system, opts)[1]
    rng = np.random.default_rng(11)
    n = 4
    tables = make(n, rng, False, **opts)
    logZ, _, grads = io(*[tables[k] for k in order], gradients=True)
    eps = 1e-6
    for name in order:
        a = tables[name]
        assert grads[name].shape == a.shape
        for idx in list(np.ndindex(a.shape))[:: max(1, a.size // 40)]:
            old = a[idx]
            a[idx] = old + eps
            up = io(*[tables[k] for k in order], marginals=False)[0]
            a[idx] = old - eps
            down = io(*[tables[k] for k in order], marginals=False)[0]
            a[idx] = old
            assert abs((up - down) / (2 * eps) - grads[name][idx]) < 1e-6, (name, idx)
    # total expected number of moves: every computation has exactly 2n moves
    total = sum(g.sum() for g in grads.values())
    assert math.isclose(total, 2 * n, rel_tol=1e-9)


def test_move_ids_are_the_packages():
    base = load_compiled("system_base")
    for i, name in tab.MOVE_NAMES.items():
        assert base.MOVE_NAMES[i] == name


def test_chart_mapping_root_move():
    """Docs: our ROOT is the spec's `ra` with s1 = the virtual root; the root table alone
    decides which words become roots. Forcing ROOT scores to favour word 1 as the only root
    (and making SHIFT onto an empty stack costly) gives one sentence rooted at 1."""
    n = 4
    N1 = n + 1
    t = {"shift": np.zeros((N1, N1)), "left": np.zeros((N1, N1, N1)),
         "right": np.zeros((N1, N1, N1)), "root": np.full((N1, N1), -50.0)}
    t["root"][1, n] = 0.0                 # ROOT of word 1 with an empty buffer
    best, moves, logZ, marg, _ = run_dp("arc_hybrid", t)
    _, heads = replay("arc_hybrid", n, moves, hybrid_scorer(t))
    assert best == 0.0 and heads[1] == 1 and sum(h == d for d, h in enumerate(heads)) == 1
    assert marg[1, 1] > 0.99


def test_bruteforce_comparison_can_fail():
    """Negative control: a scorer that reads the wrong window (b1 instead of b0 for LEFT)
    must make the comparison fail on some input."""
    rng = np.random.default_rng(5)
    failures = 0
    for _ in range(5):
        n = 4
        tables = hybrid_tables(n, rng, integer=True)
        good = hybrid_scorer(tables)

        def wrong(sim, action):
            if action == "LEFT" and len(sim.buffer()) >= 2:
                st = sim.stack()
                return tables["left"][st[-2] if len(st) >= 2 else n, st[-1], sim.buffer()[1]]
            return good(sim, action)

        bf = search_computations(Simulator("arc_hybrid", n), wrong)
        best, _, logZ, _, _ = run_dp("arc_hybrid", tables)
        failures += (best != bf["best"]) or not math.isclose(logZ, bf["logZ"], rel_tol=1e-9)
    assert failures > 0


def test_shapes_are_checked():
    with pytest.raises(ValueError):
        tab.hybrid_viterbi(np.zeros((3, 3)), np.zeros((3, 3, 3)), np.zeros((3, 3, 3)), np.zeros((4, 4)))
    with pytest.raises(ValueError):
        tab.eager_viterbi(np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3, 3)),
                          np.zeros((3, 3, 4)), np.zeros((3, 3)))


@pytest.mark.slow
@pytest.mark.parametrize("system,opts", variants())
def test_many_random_cases(system, opts):
    rng = np.random.default_rng(2011)
    for n in range(1, 8):
        for r in range(40 if n <= 5 else (12 if n == 6 else 5)):
            check_case(system, n, rng, integer=bool(r % 2 == 0), **opts)


WINDOWS = {"arc_hybrid": tab.hybrid_windows, "arc_eager": tab.eager_windows,
           "arc_standard": tab.standard_windows}


@pytest.mark.parametrize("system,opts", variants())
def test_windows_are_all_the_chart_reads(system, opts):
    """*_windows lists every table entry the chart reads: tables that are NaN everywhere
    else give the same logZ, marginals and Viterbi score (a NaN read would drop a rule)."""
    make, order = SYSTEMS[system][0], SYSTEMS[system][4]
    vit, io = kernels(system, opts)
    rng = np.random.default_rng(17)
    for n in range(1, 7):
        full = make(n, rng, False, **opts)
        wins = WINDOWS[system](n, True) if opts.get("ctx") else WINDOWS[system](n)
        masked = {}
        for name, a in full.items():
            idx = wins[name]
            idx = idx[len(idx) - a.ndim:]         # leading axes the table is given without
            m = np.full_like(a, np.nan)
            m[idx] = a[idx]
            masked[name] = m
        z1, m1, _ = io(*[full[k] for k in order])
        z2, m2, _ = io(*[masked[k] for k in order])
        assert math.isclose(z1, z2, rel_tol=1e-12), (n, z1, z2)
        assert np.allclose(m1, m2, atol=1e-12)
        assert vit(*[full[k] for k in order])[0] == vit(*[masked[k] for k in order])[0]


def test_window_counts_match_spec():
    """docs/specs/dp_tabulation.md §7: C(n+1, 3) reduce windows (s1, s0, b0) with b0 a word: 4 495 /
    35 990 / 166 650 for n = 30 / 60 / 100."""
    for n, count in ((30, 4495), (60, 35990), (100, 166650)):
        assert len(tab.hybrid_windows(n)["left"][0]) == count


def test_negative_control_untied_context():
    """docs/specs/dp_tabulation.md §9.6: the context chart without tying the right premise's context
    to the left premise's head must disagree with exhaustive search on some inputs."""
    rng = np.random.default_rng(6)
    wrong = 0
    for _ in range(6):
        n = 4
        t = hybrid_tables(n, rng, integer=True, ctx=True)
        bf = search_computations(Simulator("arc_hybrid", n), hybrid_scorer(t))
        args = [t[k] for k in ("shift", "left", "right", "root")]
        assert tab.hybrid_viterbi(*args)[0] == bf["best"]
        wrong += tab.hybrid_viterbi(*args, _untie_context=True)[0] != bf["best"]
    assert wrong > 0


def test_negative_control_untied_context_eager():
    """The same control for the arc-eager context chart [i^b, j; p]."""
    rng = np.random.default_rng(6)
    wrong = 0
    for _ in range(6):
        n = 4
        t = eager_tables(n, rng, integer=True, ctx=True)
        bf = search_computations(Simulator("arc_eager", n), eager_scorer(t, ctx=True))
        args = [t[k] for k in ("shift", "right", "left", "reduce", "root")]
        assert tab.eager_viterbi(*args, context=True)[0] == bf["best"]
        wrong += tab.eager_viterbi(*args, context=True, _untie_context=True)[0] != bf["best"]
    assert wrong > 0


def test_eliminate_labels():
    rng = np.random.default_rng(9)
    lab = rng.normal(size=(4, 4, 4, 3))
    best, arg = tab.eliminate_labels(lab, semiring="max")
    assert np.array_equal(best, lab.max(-1)) and np.array_equal(arg, lab.argmax(-1))
    lse = tab.eliminate_labels(lab, semiring="log")
    assert np.allclose(lse, np.log(np.exp(lab).sum(-1)))
    lab[0, 0, 0, :] = -np.inf
    assert tab.eliminate_labels(lab, semiring="log")[0, 0, 0] == -np.inf


# ---- the chart as a cross-check of the dynamic oracles (docs/specs/dp_tabulation.md §8, issue 8
# item 4) ----------------------------------------------------------------------------------------
def gold_arc_tables(system, gold):
    """Window scores = 1 for a move that builds a gold arc (unlabelled), else 0: the Viterbi
    score is the largest number of gold heads any computation gets, so n - Viterbi is the
    minimal loss from the initial state (the quantity a dynamic oracle's costs telescope to)."""
    n = len(gold)
    N1 = n + 1
    g = np.array(gold)
    w = np.arange(N1)
    is_head = np.zeros((N1, N1))                 # is_head[child, head], index n = none
    is_head[np.arange(n), g] = 1.0
    left = is_head[None, :, :].repeat(N1, axis=0)          # left[s1, s0, b0] = [g(s0) = b0]
    right = is_head.T[:, :, None].repeat(N1, axis=2)       # right[s1, s0, b0] = [g(s0) = s1]
    root = np.repeat(np.diag(is_head)[:, None], N1, axis=1)  # root[s0, b0] = [g(s0) = s0]
    root[n] = 0.0
    if system in ("arc_hybrid", "arc_standard"):
        if system == "arc_standard":                       # LEFT: s0 -> s1, RIGHT: s1 -> s0
            left = is_head[:, :, None].repeat(N1, axis=2)          # [g(s1) = s0]
            right = is_head.T[:, :, None].repeat(N1, axis=2)       # [g(s0) = s1]
        return [np.zeros((N1, N1)), left, right, root]
    # arc_eager: RIGHT makes b0 a dependent of s0 when it pushes; REDUCE of an L top makes
    # s0 a dependent of s1; REDUCE of an R top adds nothing new
    right_push = np.stack([is_head.T, is_head.T])          # right[f, s0, b0] = [g(b0) = s0]
    reduce_ = np.stack([right, np.zeros_like(right)])
    del w
    return [np.zeros((N1, N1)), right_push, left, reduce_, root]


ORACLE_CHECKS = [("arc_hybrid", ("projective", "multi-projective")),
                 ("arc_eager", ("projective", "nonprojective", "multi")),
                 ("arc_standard", ("projective", "nonprojective", "multi"))]


def gold_tree(kind, n, rng):
    """Random gold forests; multi-projective ones are built directly (2-3 projective
    sentences side by side) rather than by rejection, which is hopeless for long n."""
    from bruteforce import random_forest, random_projective_tree

    if kind == "multi-projective":
        cuts = sorted(rng.sample(range(1, n), 2))
        heads = []
        for a, b in zip([0] + cuts, cuts + [n]):
            heads += [h + a for h in random_projective_tree(b - a, rng)]
        return heads
    return random_forest(n, rng, kind)


def run_oracle_cross_check(n_sents, max_n, seed):
    import random as pyrandom

    rng = pyrandom.Random(seed)
    checked = 0
    for system, kinds in ORACLE_CHECKS:
        if not _system_available(system):
            continue
        viterbi = SYSTEMS[system][2]
        for s in range(n_sents):
            n = rng.randint(8, max_n)
            gold = gold_tree(kinds[s % len(kinds)], n, rng)
            best, _ = viterbi(*gold_arc_tables(system, gold))
            minloss = n - int(round(best))
            cost_sum, loss = oracle_walk(system, gold, rng, p_random=0.0)
            assert loss == minloss, (system, gold, loss, minloss)
            cost_sum, loss = oracle_walk(system, gold, rng, p_random=0.3)
            # costs telescope: loss(final) = minloss(initial) + sum of the costs on the path
            assert loss == minloss + cost_sum, (system, gold, loss, minloss, cost_sum)
            checked += 1
    return checked


def test_chart_cross_checks_the_oracles():
    """Long sentences (n up to 40, beyond brute force): following zero-cost moves reaches
    the chart's minimal loss, and on walks with random moves the costs sum to the excess."""
    assert run_oracle_cross_check(n_sents=30, max_n=40, seed=8) > 0


@pytest.mark.slow
def test_chart_cross_checks_the_oracles_many():
    assert run_oracle_cross_check(n_sents=400, max_n=80, seed=9) > 0
