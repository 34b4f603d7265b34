"""The one brute-force reference of the test suite, shared by every transition system.

Everything goes through spacy_dynoracle.testing.Simulator, i.e. through the same Cython
transitions and cost functions that training uses. `minloss` is an exhaustive memoised
search over all action sequences; `check_costs` compares a system's costs with it.
"""
import random
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from spacy_dynoracle.testing import Simulator


# ---- sentences of a parse ---------------------------------------------------------------
def sentence_of(heads: Sequence[int], i: int) -> int:
    """The root above word i (a root points to itself); asserts there is no cycle."""
    seen = set()
    while heads[i] != i:
        assert i not in seen, f"cycle in {heads}"
        seen.add(i)
        i = heads[i]
    return i


def assert_contiguous_sentences(heads: Sequence[int]) -> None:
    """Each root's words form one contiguous block."""
    roots = [sentence_of(heads, i) for i in range(len(heads))]
    for i in range(1, len(heads)):
        if roots[i] != roots[i - 1]:
            assert roots[i] not in roots[:i], f"sentence of {roots[i]} not contiguous: {heads}"


# ---- random gold trees ----------------------------------------------------------------
def random_tree(n: int, rng: random.Random) -> List[int]:
    """Uniform-ish random dependency tree over n words (root points to itself):
    attach the words in random order to an already attached word."""
    order = list(range(n))
    rng.shuffle(order)
    heads = [0] * n
    heads[order[0]] = order[0]
    for k in range(1, n):
        heads[order[k]] = order[rng.randrange(k)]
    return heads


def random_projective_tree(n: int, rng: random.Random) -> List[int]:
    """Random projective tree: split the words into contiguous subtrees, recursively."""
    heads = [0] * n

    def attach(lo, hi, head):
        # words lo..hi-1 form a run of sibling subtrees whose heads attach to `head`
        while lo < hi:
            cut = rng.randint(lo + 1, hi)
            root = rng.randrange(lo, cut)
            heads[root] = root if head is None else head
            attach(lo, root, root)
            attach(root + 1, cut, root)
            lo = cut

    root = rng.randrange(n)
    heads[root] = root
    attach(0, root, root)
    attach(root + 1, n, root)
    return heads


def is_projective(heads: Sequence[int]) -> bool:
    """Projective w.r.t. a virtual root before word 0 (root arcs never cross)."""
    n = len(heads)
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads) if h != d and h >= 0]
    for d, h in enumerate(heads):
        if h == d or h < 0:
            arcs.append((-1, d))
    for a, b in arcs:
        for c, d in arcs:
            if a < c < b < d:
                return False
    return True


def random_forest(n: int, rng: random.Random, kind: str) -> List[int]:
    """A random gold forest: kind is 'projective', 'nonprojective' or 'multi' (2-3
    contiguous sentences, any projectivity)."""
    while True:
        if kind == "multi" and n >= 3:
            k = rng.choice([2, 2, 3]) if n >= 5 else 2
            cuts = sorted(rng.sample(range(1, n), k - 1))
            bounds = [0] + cuts + [n]
            heads = []
            for a, b in zip(bounds, bounds[1:]):
                heads += [h + a for h in random_tree(b - a, rng)]
            return heads
        if kind == "projective" or n < 3:
            return random_projective_tree(n, rng)
        heads = random_tree(n, rng)
        if not is_projective(heads):
            return heads


# ---- exhaustive search -------------------------------------------------------------------
class BruteForce:
    """Memoised exhaustive search over every action sequence of a Simulator."""

    def __init__(self, gold_heads: Sequence[int], gold_labels: Optional[Sequence[str]] = None):
        self.gold_heads = list(gold_heads)
        self.gold_labels = list(gold_labels) if gold_labels is not None else None
        self.memo: Dict[tuple, int] = {}

    def final_loss(self, sim: Simulator) -> int:
        return self.wrong_arcs(sim, built_only=False)

    def wrong_arcs(self, sim: Simulator, built_only: bool) -> int:
        """Gold words whose head (or, labelled, label) in `sim` is wrong; built_only: only
        among the words that already have a head."""
        heads = sim.heads()
        labels = sim.labels() if self.gold_labels is not None else None
        loss = 0
        for i, g in enumerate(self.gold_heads):
            if g < 0 or (built_only and heads[i] < 0):
                continue
            if heads[i] != g:
                loss += 1
            elif labels is not None and g != i and labels[i] != self.gold_labels[i]:
                loss += 1
        return loss

    def exact_costs(self, sim: Simulator, actions) -> Dict[str, int]:
        """The exact cost of each action: minloss after it - minloss now."""
        now = self.minloss(sim)
        return {a: self.minloss(sim.copy().apply(a)) - now for a in actions}

    def minloss(self, sim: Simulator) -> int:
        if getattr(sim.moves, "bruteforce_arc_monotone", False):
            return self.built_loss(sim) + self.future(sim)
        key = sim.key()
        if key in self.memo:
            return self.memo[key]
        if sim.is_final():
            value = self.final_loss(sim)
        else:
            actions = sim.actions(labelled=self.gold_labels is not None)
            assert actions, f"no valid action in a non-final state: {sim!r}"
            value = min(self.minloss(sim.copy().apply(a)) for a in actions)
        self.memo[key] = value
        return value


    # Systems whose moves never change a head once set and whose validity and effects depend
    # on the stack and buffer only (class attribute `bruteforce_arc_monotone = True`, e.g.
    # attardi) have minloss = (wrong arcs built) + F(stack, buffer) (docs/specs/attardi.md §3.1), so
    # the search memoises the future on (stack, buffer): same exhaustive search, far fewer states.
    # Both properties are asserted along the way.
    def built_loss(self, sim: Simulator) -> int:
        return self.wrong_arcs(sim, built_only=True)

    def future(self, sim: Simulator) -> int:
        key = ("future", tuple(sim.stack()), tuple(sim.buffer()))
        labelled = self.gold_labels is not None
        actions = None if sim.is_final() else tuple(sim.actions(labelled=labelled))
        if key in self.memo:
            value, seen_actions = self.memo[key]
            assert seen_actions == actions, f"valid actions depend on more than stack/buffer: {sim!r}"
            return value
        if actions is None:
            assert -1 not in sim.heads(), f"final state with unattached words: {sim!r}"
            value = 0
        else:
            assert actions, f"no valid action in a non-final state: {sim!r}"
            heads, now = sim.heads(), self.built_loss(sim)
            value = None
            for a in actions:
                nxt = sim.copy().apply(a)
                new_heads = nxt.heads()
                assert all(h == new_heads[i] for i, h in enumerate(heads) if h >= 0), \
                    f"{a} changed a head that was set: {sim!r}"
                v = self.built_loss(nxt) - now + self.future(nxt)
                value = v if value is None else min(value, v)
        self.memo[key] = (value, actions)
        return value


def random_state(sim: Simulator, gold_heads, rng: random.Random, p_oracle: float = 0.5,
                 max_steps: Optional[int] = None) -> Simulator:
    """Walk from `sim` mixing zero-cost moves (prob p_oracle) and random valid moves, and
    stop at a random point: a random reachable state, on or off the gold path."""
    sim = sim.copy()
    steps = rng.randrange(0, max_steps if max_steps else 3 * sim.n_words + 1)
    for _ in range(steps):
        if sim.is_final():
            break
        actions = sim.actions()
        if rng.random() < p_oracle:
            costs = sim.costs(gold_heads)
            zero = [a for a in actions if costs[a] == 0]
            actions = zero or actions
        sim.apply(rng.choice(actions))
    return sim


def sample_states(rng: random.Random, n_states: int, kinds: Sequence[str],
                  new_case: Callable[[str], Tuple[List[int], "BruteForce", Simulator]],
                  per_gold: int = 8):
    """Random non-final states to check an oracle on: for each gold kind in turn,
    new_case(kind) gives (gold heads, its BruteForce, the start Simulator), and up to
    per_gold random states reachable from the start (random_state) are yielded as
    (kind, gold, bf, start, sim), until n_states have been."""
    count = 0
    while count < n_states:
        kind = kinds[count % len(kinds)]
        gold, bf, start = new_case(kind)
        for _ in range(per_gold):
            sim = random_state(start, gold, rng)
            if sim.is_final():
                continue
            count += 1
            yield kind, gold, bf, start, sim


def oracle_walk(system: str, gold, rng: random.Random, p_random: float,
                **options) -> Tuple[int, int]:
    """Walk from the initial state of `system` to a final one, taking a random valid move with
    probability p_random and a random zero-cost move otherwise; return (the sum of the costs
    of the moves taken, the loss of the final state)."""
    sim = Simulator(system, len(gold), **options)
    total = 0
    while not sim.is_final():
        costs = sim.costs(gold)
        zero = [a for a, c in costs.items() if c == 0]
        a = rng.choice(sorted(costs)) if (rng.random() < p_random or not zero) else rng.choice(zero)
        total += costs[a]
        sim.apply(a)
    return total, sum(h != g for h, g in zip(sim.heads(), gold))


def check_costs(sim: Simulator, bf: BruteForce, gold_labels=None) -> List[str]:
    """Compare every valid action's cost with minloss(after) - minloss(now); return the
    mismatches as readable strings (empty = exact in this state). gold_labels: the labels
    the costs are asked with, when not those the brute force searches for (the system backs
    them off itself)."""
    labelled = bf.gold_labels is not None
    if gold_labels is None:
        gold_labels = bf.gold_labels
    costs = sim.costs(bf.gold_heads, gold_labels) if labelled else sim.costs(bf.gold_heads)
    now = bf.minloss(sim)
    errors = []
    expected_actions = set(sim.actions(labelled=labelled))
    if set(costs) != expected_actions:
        errors.append(f"costs for {sorted(costs)} but valid actions are {sorted(expected_actions)}")
    for action in expected_actions:
        true = bf.minloss(sim.copy().apply(action)) - now
        if costs.get(action) != true:
            errors.append(f"{action}: cost {costs.get(action)} != exact {true}")
    if errors:
        errors.insert(0, f"gold={bf.gold_heads} labels={bf.gold_labels} state={sim!r}")
    return errors


def static_sequence(system: str, gold_heads, **options) -> Tuple[List[int], List[str]]:
    """Follow the static oracle (the zero-cost move) from the initial state; return the
    heads it builds and its actions. `oracle` defaults to "static"."""
    oracle = options.pop("oracle", "static")
    sim = Simulator(system, len(gold_heads), oracle=oracle, **options)
    n = len(gold_heads)
    actions = []
    for _ in range(2 * n + n * n + 10):    # swap: 2n + 2#SW transitions, #SW <= n(n-1)/2
        if sim.is_final():
            return sim.heads(), actions
        costs = sim.costs(gold_heads)
        zero = [a for a, c in costs.items() if c == 0]
        assert len(zero) == 1, f"static oracle must give exactly one move, got {costs}"
        sim.apply(zero[0])
        actions.append(zero[0])
    raise AssertionError(f"static oracle did not terminate on {gold_heads}")


def static_rebuilds(system: str, gold_heads, **options) -> Optional[List[int]]:
    """The heads the static oracle builds from the initial state."""
    return static_sequence(system, gold_heads, **options)[0]


# ---- gold reachability (non-deterministic oracles, inexact costs) --------------------------
class GoldReach:
    """Exhaustive search for the gold tree itself: which actions keep it reachable, and the
    fewest `weight`-ed actions (e.g. SWAPs) of a derivation. Only states whose built heads
    are all gold are expanded (the package's systems are monotone: a head once set is
    never changed, so no other state can reach the gold tree). `allowed(sim, action)`
    restricts the actions (e.g. swap's projective-order swaps, docs/specs/swap.md §7)."""

    def __init__(self, gold_heads: Sequence[int], allowed: Optional[Callable] = None,
                 weight: Optional[Callable] = None):
        self.gold_heads = list(gold_heads)
        self.allowed = allowed or (lambda sim, action: True)
        self.weight = weight or (lambda action: 0)
        self.memo: Dict[tuple, Optional[int]] = {}

    def consistent(self, sim: Simulator) -> bool:
        return all(h == -1 or g < 0 or h == g for h, g in zip(sim.heads(), self.gold_heads))

    def best(self, sim: Simulator) -> Optional[int]:
        """Fewest weighted actions to the gold tree from sim (None: unreachable)."""
        key = sim.key()
        if key in self.memo:
            return self.memo[key]
        value = None
        if not self.consistent(sim):
            value = None
        elif sim.is_final():
            value = 0
        else:
            actions = sim.actions()
            assert actions, f"no valid action in a non-final state: {sim!r}"
            for a in actions:
                if not self.allowed(sim, a):
                    continue
                v = self.best(sim.copy().apply(a))
                if v is not None:
                    v += self.weight(a)
                    if value is None or v < value:
                        value = v
        self.memo[key] = value
        return value

    def reachable(self, sim: Simulator) -> bool:
        return self.best(sim) is not None

    def keeping_gold(self, sim: Simulator) -> set:
        """The allowed actions after which the gold tree is still reachable."""
        return {a for a in sim.actions()
                if self.allowed(sim, a) and self.reachable(sim.copy().apply(a))}


def zero_set_check(sim: Simulator, bf: BruteForce, costs: Optional[Dict[str, int]] = None):
    """For an inexact cost: (zero-cost set, set of truly optimal actions by exhaustive
    search). Exact zero set: equal; sound: zero <= optimal; complete: optimal <= zero."""
    costs = sim.costs(bf.gold_heads) if costs is None else costs
    now = bf.minloss(sim)
    optimal = {a for a in sim.actions() if bf.minloss(sim.copy().apply(a)) == now}
    zero = {a for a, c in costs.items() if c == 0}
    return zero, optimal


def agreement_rates(samples) -> Dict[str, Dict[str, float]]:
    """samples: iterable of (region, zero set, optimal set). Per region: count and the
    shares of states whose zero set is exactly optimal, sound (no zero-cost action is
    suboptimal) and complete (every optimal action has cost zero)."""
    out: Dict[str, Dict[str, float]] = {}
    for region, zero, optimal in samples:
        r = out.setdefault(region, {"states": 0, "exact": 0, "sound": 0, "complete": 0})
        r["states"] += 1
        r["exact"] += zero == optimal
        r["sound"] += zero <= optimal
        r["complete"] += optimal <= zero
    for r in out.values():
        for k in ("exact", "sound", "complete"):
            r[k] = r[k] / r["states"]
    return out


# ---- every complete computation, scored (tabulation tests) ----------------------------------
def search_computations(start: Simulator, score) -> dict:
    """Exhaustive search over every complete action sequence from `start`, each scored by
    the sum of score(sim, action) over its steps (sim = the state the action is taken in).

    Layered forward search over the Simulator's states: sequences of the same length that
    reach the same state (same key) are merged, which is exact because everything after a
    state depends on the state alone. Returns count (number of complete sequences), best,
    best_seq (one maximising sequence), logZ (log-sum-exp over all sequences) and marginals
    (marginals[d][h] = probability, under exp(score - logZ), that the final head of d is h;
    a root has h == d)."""
    import math

    def lae(a, b):
        if a == -math.inf:
            return b
        if b == -math.inf:
            return a
        m = max(a, b)
        return m + math.log(math.exp(a - m) + math.exp(b - m))

    layer = {start.key(): [start, 0.0, 0.0, [], 1]}   # sim, alpha, best, best_seq, count
    finals = {}
    while layer:
        nxt = {}
        for sim, alpha, best, seq, count in layer.values():
            if sim.is_final():
                f = finals.setdefault(sim.key(), [sim, -math.inf, -math.inf, None, 0])
                f[1] = lae(f[1], alpha)
                if best > f[2]:
                    f[2], f[3] = best, seq
                f[4] += count
                continue
            actions = sim.actions()
            assert actions, f"no valid action in a non-final state: {sim!r}"
            for a in actions:
                w = score(sim, a)
                new = sim.copy().apply(a)
                e = nxt.setdefault(new.key(), [new, -math.inf, -math.inf, None, 0])
                e[1] = lae(e[1], alpha + w)
                if best + w > e[2]:
                    e[2], e[3] = best + w, seq + [a]
                e[4] += count
        layer = nxt
    logZ = -math.inf
    for f in finals.values():
        logZ = lae(logZ, f[1])
    n = start.n_words
    marginals = [[0.0] * n for _ in range(n)]
    top = max(finals.values(), key=lambda f: f[2])
    for sim, alpha, _, _, _ in finals.values():
        if logZ == -math.inf:
            break                         # no computation has a finite score
        p = math.exp(alpha - logZ)
        for d, h in enumerate(sim.heads()):
            marginals[d][h] += p
    return {"count": sum(f[4] for f in finals.values()), "best": top[2], "best_seq": top[3],
            "logZ": logZ, "marginals": marginals}
