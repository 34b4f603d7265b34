"""Why attardi's guard gives no signal on a long non-covered sentence (issue 23): the gap
between the bounds the guard reads, along the walk of tests/test_long_sentences.py.

The walk (a synthetic 300-word non-projective sentence, an exploring untrained model that
shifts on half of its moves) goes through Simulator.training_costs, the costs training gets.
Every --every states it prints, for the configuration (σ, b) at node level:

* lo: the orphan count |O| (AttardiOracle.lower_bound), the guard's lower bound of F;
* win: |O| plus the exact excess of each window of --window consecutive words of σ·β,
  alone (each window a configuration of its own; a word whose gold head lies outside its
  window, or is an orphan, gets an unknown head, which costs 0). A computation from
  (σ, b) restricted to a window is a computation of the window (deleting words only
  shortens stack distances; a word whose head was deleted is attached to a neighbour at
  distance 1 instead, free under an unknown head), with no more wrong non-orphan arcs
  inside it, and the windows share no dependent, so win <= F;
* hi: the greedy completion (AttardiOracle.greedy_upper), the guard's upper bound.

The guard's cost of a move is max(0, Llo(move) - min Lhi): with hi - lo over a few words for
every successor, every cost is 0. If win stays near lo while hi is far above, it is the
upper bound (the greedy's cascade of wrong arcs behind a non-derivable arc) that has to get
tighter.

    python benchmarks/attardi_bound_gap.py --n 300 --every 60 --window 16
"""
import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from synthetic import long_nonprojective_heads  # noqa: E402


def windowed_lower_bound(oracle, heads, stack, b, window):
    """|O| + the sum over windows of `window` consecutive words of σ·β of their exact
    excess alone (see the module docstring): a lower bound of F(σ, b)."""
    from spacy_dynoracle.attardi_oracle import OracleGold

    n = len(heads)
    node_head = [-1] + [0 if h == i else (h + 1 if h >= 0 else -1) for i, h in enumerate(heads)]
    alive = set(stack) | set(range(b, n + 1))
    words = list(stack[1:]) + list(range(b, n + 1))
    orphans = {x for x in words if node_head[x] > 0 and node_head[x] not in alive}
    total = len(orphans)
    for i in range(0, len(words), window):
        part = words[i:i + window]
        index = {x: j for j, x in enumerate(part)}
        sub = [-1 if x in orphans else (j if node_head[x] == 0 else index.get(node_head[x], -1))
               for j, x in enumerate(part)]
        on_stack = sum(1 for x in part if x < b)
        total += oracle.py_future_loss(OracleGold(sub, D=oracle.D), list(range(on_stack + 1)),
                                       on_stack + 1)
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--degree", type=int, default=2)
    ap.add_argument("--every", type=int, default=60)
    ap.add_argument("--window", type=int, default=16)
    args = ap.parse_args()
    from spacy_dynoracle.attardi_oracle import AttardiOracle, OracleGold
    from spacy_dynoracle.testing import Simulator

    heads = long_nonprojective_heads(args.n, seed=args.seed)
    gold = OracleGold(heads, D=args.degree)
    bounds = AttardiOracle(D=args.degree)                   # for lower_bound / greedy_upper
    exact = AttardiOracle(D=args.degree, budget=10**9)      # the windows' tables, unguarded
    sim = Simulator("attardi", args.n, labels=["dep"], degree=args.degree)
    labels = ["dep"] * args.n
    rng = random.Random(args.seed)
    states = nonzero = 0
    print(f"covered: {gold.covered}; state, |σ|, b, lo, win, hi")
    while not sim.is_final():
        costs = sim.training_costs(heads, labels)
        states += 1
        nonzero += any(c > 0 for c in costs.values())
        if states % args.every == 0 and sim.buffer():
            stack = [0] + [w + 1 for w in sim.stack()]
            b = sim.buffer()[0] + 1
            lo, hi, _ = bounds.py_bounds(gold, stack, b)
            win = windowed_lower_bound(exact, heads, stack, b, args.window)
            print(f"{states:5d} {len(stack):4d} {b:4d} {lo:4d} {win:4d} {hi:4d}")
        acts = sorted(costs)
        if rng.random() < 0.5:
            act = rng.choice([a for a in acts if a.startswith("SHIFT")] or acts)
        else:
            act = rng.choice([a for a in acts if costs[a] == 0])
        sim.apply(act)
    print(f"{states} states, {nonzero} with a nonzero cost; oracle paths: "
          f"{sim.moves.oracle_stats()}")


if __name__ == "__main__":
    main()
