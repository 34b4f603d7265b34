"""Time per state of a system's dynamic oracle on real sentences (issue 5).

    python benchmarks/oracle_timing.py --treebank UD_English-EWT --system arc_standard
    python benchmarks/oracle_timing.py --treebank UD_Hungarian-Szeged --system lr_spine --max-k 2

Every training sentence is parsed once, one sentence per Doc, by a walk that follows the
oracle (a random zero-cost move) and with probability --explore takes a random valid
move instead, so that states off the gold path (exploration) are timed too. Each state's
costs are computed once through the system's own `move_costs` (the Simulator's entry
point `_sim_costs`, a thin Python wrapper, included in the times), --reps times, keeping
the fastest (on a shared machine a single timing mostly measures preemption). Prints p50/p99/max time
per state, the time per sentence to build the oracle's gold, and the same for states of
sentences with non-projective gold.
"""
import argparse
import random
import time
from pathlib import Path

import numpy
from spacy.pipeline._parser_internals.stateclass import StateClass
from spacy.tokens import Doc
from spacy.vocab import Vocab

from spacy_dynoracle import get_system_class, load_compiled
from spacy_dynoracle.conllu_io import read_conllu

UD = Path(__file__).resolve().parents[2] / "shared" / "ud"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebank", default="UD_English-EWT")
    ap.add_argument("--system", default="arc_standard")
    ap.add_argument("--oracle", default="dynamic")
    ap.add_argument("--max-k", type=int, default=None)
    ap.add_argument("--explore", type=float, default=0.1)
    ap.add_argument("--limit", type=int, default=0, help="first N sentences only")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reps", type=int, default=3,
                    help="time each state this often and keep the fastest (the machine is "
                         "shared: single timings mostly measure preemption)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    train = next((UD / args.treebank).glob("*-ud-train.conllu"))
    base = load_compiled("system_base")
    module = load_compiled(args.system)
    cls = get_system_class(args.system)
    options = {"max_k": args.max_k} if args.max_k else {}
    vocab = Vocab()
    moves = cls(vocab.strings, projectivize=False, oracle=args.oracle, **options)
    actions = {m: ({"": 1} if m not in moves.arc_move_types else {"dep": 1})
               for m in moves.move_types}
    actions[3] = {"ROOT": 1}
    moves.initialize_actions(actions)
    classes = {moves.get_class_name(i).split("-")[0]: i for i in range(moves.n_moves)}
    code_of = dict(zip(range(len(base.MOVE_CODES)), base.MOVE_CODES))
    times, times_np, gold_times = [], [], []
    n_sents = 0
    for sent in read_conllu(train, on_error="skip"):
        if args.limit and n_sents >= args.limit:
            break
        heads = [i if h == 0 else h - 1 for i, h in enumerate(sent.heads)]
        n = len(heads)
        n_sents += 1
        t0 = time.perf_counter()
        gold = base.DynGold(heads, [0] * n)
        og = module.attach_oracle(gold)
        gold_times.append(time.perf_counter() - t0)
        nonproj = not getattr(og, "paper_exact", getattr(og, "projective", True))
        doc = Doc(vocab, words=[w.form for w in sent.words])
        state = StateClass(doc)
        while not state.is_final():
            dt = float("inf")
            for _ in range(args.reps):
                t0 = time.perf_counter()
                costs = moves._sim_costs(state, gold)
                dt = min(dt, time.perf_counter() - t0)
            times.append(dt)
            if nonproj:
                times_np.append(dt)
            valid = list(costs)
            if rng.random() < args.explore:
                move = rng.choice(valid)
            else:
                move = rng.choice([m for m in valid if costs[m] == min(costs.values())])
            moves._sim_apply(state, classes[code_of[move]])
    report(f"{args.treebank} {args.system} {options or ''} ({n_sents} sentences, "
           f"explore {args.explore}, min of {args.reps})", times, times_np, gold_times)


def report(title, times, times_np, gold_times):
    def stats(xs):
        a = numpy.asarray(xs) * 1e6
        return (f"n={len(a)} mean={a.mean():.1f}us p50={numpy.percentile(a, 50):.1f}us "
                f"p99={numpy.percentile(a, 99):.1f}us max={a.max():.0f}us")
    print(title)
    print("  per state, all      :", stats(times))
    if times_np:
        print("  per state, non-proj :", stats(times_np))
    print("  gold build per sent :", stats(gold_times))


if __name__ == "__main__":
    main()
