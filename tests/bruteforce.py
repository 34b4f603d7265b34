"""The one brute-force reference of the test suite, shared by every transition system.

Everything goes through spacy_dynoracle.testing.Simulator, i.e. through the same Cython
transitions and cost functions that training uses. `minloss` is an exhaustive memoised
search over all action sequences; `check_costs` compares a system's costs with it.
"""
import random
from typing import Dict, List, Optional, Sequence

from spacy_dynoracle.testing import Simulator


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
        heads = sim.heads()
        labels = sim.labels() if self.gold_labels is not None else None
        loss = 0
        for i, g in enumerate(self.gold_heads):
            if g < 0:
                continue
            if heads[i] != g:
                loss += 1
            elif labels is not None and g != i and labels[i] != self.gold_labels[i]:
                loss += 1
        return loss

    def minloss(self, sim: Simulator) -> int:
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


def check_costs(sim: Simulator, bf: BruteForce) -> List[str]:
    """Compare every valid action's cost with minloss(after) - minloss(now); return the
    mismatches as readable strings (empty = exact in this state)."""
    labelled = bf.gold_labels is not None
    costs = sim.costs(bf.gold_heads, bf.gold_labels) if labelled else sim.costs(bf.gold_heads)
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


def static_rebuilds(system: str, gold_heads, **options) -> Optional[List[int]]:
    """Follow the static oracle (the zero-cost move) from the initial state; return the
    heads it builds."""
    sim = Simulator(system, len(gold_heads), oracle="static", **options)
    for _ in range(10 * len(gold_heads) + 10):
        if sim.is_final():
            return sim.heads()
        costs = sim.costs(gold_heads)
        zero = [a for a, c in costs.items() if c == 0]
        assert len(zero) == 1, f"static oracle must give exactly one move, got {costs}"
        sim.apply(zero[0])
    raise AssertionError(f"static oracle did not terminate on {gold_heads}")
