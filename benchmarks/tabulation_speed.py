"""Exact decoding time per sentence of the tabulation kernels (spacy_dynoracle.tabulation,
spec dp_tabulation.md §7) at n = 30, 60, 100 words, on random float64 window-score tables
(the scores a model would precompute; their computation is not timed).

    flock /tmp/dynoracle-cpu.lock python3 benchmarks/tabulation_speed.py
    python3 benchmarks/tabulation_speed.py --lengths 30,60 --repeat 20

Prints the median and min wall time per call (ms) of: Viterbi + backtrace (decode) and
inside + outside + arc marginals (marginals) for arc-hybrid (plain O(n^3) chart and the
context O(n^4) chart), arc-eager (plain chart, head flags of s0 in the windows) and
arc-standard (O(n^5), up to --standard-max). Wall time: run it on an otherwise idle CPU. The
spec's plain C max-plus kernel for the arc-eager/hybrid O(n^3) window DP: about
0.07 / 0.5 / 2.3 ms at n = 30 / 60 / 100 (float32, single thread).
"""
import argparse
import statistics
import time

import numpy as np

from spacy_dynoracle import load_compiled


def timeit(fn, repeat):
    fn()                                  # warm-up (allocation, page faults)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lengths", default="30,60,100")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--context-max", type=int, default=100,
                    help="skip the O(n^4) context chart above this length")
    ap.add_argument("--standard-max", type=int, default=60,
                    help="skip the O(n^5) arc-standard chart above this length")
    args = ap.parse_args()
    tab = load_compiled("tabulation")
    rng = np.random.default_rng(0)
    print(f"{'n':>4} {'kernel':<34} {'median ms':>10} {'min ms':>9}")
    for n in [int(x) for x in args.lengths.split(",")]:
        N1 = n + 1
        h = [rng.normal(size=(N1, N1)), rng.normal(size=(N1, N1, N1)),
             rng.normal(size=(N1, N1, N1)), rng.normal(size=(N1, N1))]
        hc = [rng.normal(size=(N1, N1, N1))] + h[1:]
        e = [rng.normal(size=(2, N1, N1)), rng.normal(size=(2, N1, N1)),
             rng.normal(size=(N1, N1, N1)), rng.normal(size=(2, N1, N1, N1)),
             rng.normal(size=(N1, N1))]
        rows = [
            ("arc_hybrid decode  O(n^3)", lambda: tab.hybrid_viterbi(*h)),
            ("arc_eager  decode  O(n^3)", lambda: tab.eager_viterbi(*e)),
            ("arc_hybrid marginals O(n^3)", lambda: tab.hybrid_inside_outside(*h)),
            ("arc_eager  marginals O(n^3)", lambda: tab.eager_inside_outside(*e)),
        ]
        if n <= args.context_max:
            rows.append(("arc_hybrid decode  context O(n^4)", lambda: tab.hybrid_viterbi(*hc)))
            rows.append(("arc_hybrid marginals context O(n^4)",
                         lambda: tab.hybrid_inside_outside(*hc)))
        if n <= args.standard_max:
            rows.append(("arc_standard decode O(n^5)", lambda: tab.standard_viterbi(*h)))
            rows.append(("arc_standard marginals O(n^5)", lambda: tab.standard_inside_outside(*h)))
        for name, fn in rows:
            slow = "context" in name or "standard" in name
            med, best = timeit(fn, max(3, args.repeat // 3) if slow else args.repeat)
            print(f"{n:>4} {name:<34} {med:>10.3f} {best:>9.3f}", flush=True)


if __name__ == "__main__":
    main()
