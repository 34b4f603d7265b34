"""easy_first's exact oracle cut at gold sentences (now) vs the DP over the whole pending
list (before), on the same states: UD training Docs of 10 sentences with their gold as it
is (projectivize = false), cut into the segments training uses
(`update_with_oracle_cut_size`, easy_first_parser.training_segments; --cut-size 0: the
whole Doc), each walked from the initial state to the end. At each state the walk takes a
random valid action with probability --p-random (a model's mistake), a random zero-cost one
otherwise.

Before: §5.3's formula if the segment's gold is complete and projective, else the DP over
the whole pending list (`EasyFirstGoldTable.whole_list_costs`, the oracle as it was). Now:
the moves' own costs (the formula on the gold sentences with complete projective gold, the
DP per sentence on the others). The costs are asserted equal on every state. Both are timed
in process CPU time through their thin Python wrappers (Python overhead included, a few
µs); now --reps times per state keeping the fastest, before once. Printed per treebank:
states, the share of states that ran a DP (before: every state of a segment with a
non-projective sentence; now: a state with a non-projective sentence still pending), the
DP's cells (sum of the cubed list sizes), the time per state.

    UD_ROOT=/work/shared/ud python benchmarks/easy_first_cut.py \\
        --treebanks UD_Hungarian-Szeged,UD_Latin-Perseus --docs 20

--min-sent-len L keeps the Docs holding a sentence of at least L words (as oracle_time.py
and train_step.py do; issue 23's long sentences); the "now" times are then also split by
the length of the longest sentence of the state's segment. --now-only skips "before" (the
whole-list DP, costly on long segments) and the comparison; --lifted walks the gold lifted
to a projective tree (spaCy's pseudo-projective transformation), as training gets it with
the default projectivize = true.

    UD_ROOT=/work/shared/ud python benchmarks/easy_first_cut.py --treebanks UD_Portuguese-Bosque \\
        --docs 12 --min-sent-len 100 --p-random 0.9 --now-only
"""
import argparse
import random
import time

import numpy

from common import csv_list, load_examples, treebank_files

LENGTH_BUCKETS = ((1, 30), (31, 100), (101, 10**9))   # as oracle_time.py's


def fastest(fn, reps):
    """(result, the least process CPU time of reps calls, in µs)."""
    best = None
    for _ in range(reps):
        t0 = time.process_time_ns()
        out = fn()
        t = time.process_time_ns() - t0
        best = t if best is None else min(best, t)
    return out, best / 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treebanks", default="UD_Hungarian-Szeged,UD_Latin-Perseus")
    ap.add_argument("--docs", type=int, default=20, help="training Docs (10 sentences) per treebank")
    ap.add_argument("--cut-size", type=int, default=100,
                    help="update_with_oracle_cut_size (the component's default); 0: whole Docs")
    ap.add_argument("--p-random", type=float, default=0.5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-sent-len", type=int, default=0,
                    help="only the Docs holding a sentence of at least this many words")
    ap.add_argument("--lifted", action="store_true",
                    help="the gold lifted to a projective tree, as training gets it by default "
                         "(projectivize = true: only the formula runs)")
    ap.add_argument("--now-only", action="store_true",
                    help="time the moves' costs only (no whole-list DP, no comparison)")
    args = ap.parse_args()
    from spacy.pipeline._parser_internals.nonproj import projectivize

    from spacy_dynoracle import load_compiled
    from spacy_dynoracle.easy_first_parser import training_segments
    from spacy_dynoracle.testing import Simulator

    table_cls = load_compiled("easy_first_oracle").EasyFirstGoldTable
    rng = random.Random(args.seed)
    for treebank in csv_list(args.treebanks):
        train, _ = treebank_files(treebank)
        rows = {"before": [], "now": []}
        dp = {"before": 0, "now": 0}
        cells = {"before": 0, "now": 0}
        sizes = []
        longest = []    # per state: the longest sentence of its segment
        for eg in load_examples(train, limit=args.docs, min_sent_len=args.min_sent_len):
            heads = [t.head.i for t in eg.reference]
            for start, end in training_segments(heads, args.cut_size):
                gold = [h - start for h in heads[start:end]]
                n = len(gold)
                if args.lifted:
                    gold = list(projectivize(gold, ["dep"] * n)[0])
                sizes.append(n)
                seg_longest = max(len(s) for s in eg.reference[start:end].sents)
                table = table_cls(gold)
                sim = Simulator("easy_first", n)
                formula = Simulator("easy_first", n, oracle="goldberg-nivre")
                while not sim.is_final():
                    pending = sim.stack()
                    sim.moves.reset_oracle_stats()
                    now, t_now = fastest(lambda: sim.costs(gold), args.reps)
                    stats = sim.moves.oracle_stats()
                    longest.append(seg_longest)
                    if args.now_only:
                        pass
                    elif table.formula_exact:
                        formula.state = sim.state
                        before, t_before = fastest(lambda: formula.costs(gold), 1)
                    else:
                        raw, t_before = fastest(lambda: table.whole_list_costs(pending), 1)
                        before = {a: raw[sim.moves.action_id(a)] for a in now}
                        dp["before"] += 1
                        cells["before"] += (len(pending) + 1) ** 3
                    if not args.now_only:
                        assert now == before, (treebank, gold, pending)
                        rows["before"].append(t_before)
                    dp["now"] += stats["dp_states"] // max(stats["states"], 1)
                    cells["now"] += stats["dp_cells"]
                    rows["now"].append(t_now)
                    zero = [a for a, c in now.items() if c == 0]
                    actions = sim.actions()
                    sim.apply(rng.choice(actions if rng.random() < args.p_random or not zero else zero))
        states = len(rows["now"])
        print(f"{treebank}: {len(sizes)} segments of {numpy.mean(sizes):.0f} words on average "
              f"(max {max(sizes)}, cut size {args.cut_size}), {states} states"
              + ("" if args.now_only else ", equal costs"))
        for name in (("now",) if args.now_only else ("before", "now")):
            a = numpy.asarray(rows[name])
            print(f"  {name:6}  DP in {dp[name]:6d} states ({100 * dp[name] / states:5.1f}%), "
                  f"DP cells {cells[name]:.3g}; per state mean {a.mean():8.1f} µs  "
                  f"p50 {numpy.percentile(a, 50):7.1f} µs  p99 {numpy.percentile(a, 99):8.1f} µs  "
                  f"max {a.max() / 1000:6.2f} ms  total {a.sum() / 1e6:6.2f} s  "
                  f"> 50 ms {int((a > 50000).sum())}")
        now = numpy.asarray(rows["now"])
        seg = numpy.asarray(longest)
        for lo, hi in LENGTH_BUCKETS:
            a = now[(seg >= lo) & (seg <= hi)]
            if a.size:
                print(f"    segment's longest sentence {lo}-{hi if hi < 10**9 else ''} words: "
                      f"{a.size} states, p50 {numpy.percentile(a, 50):.1f} µs, p99 "
                      f"{numpy.percentile(a, 99):.1f} µs, max {a.max() / 1000:.2f} ms")


if __name__ == "__main__":
    main()
