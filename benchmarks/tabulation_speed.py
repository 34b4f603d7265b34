"""Exact decoding time per sentence of the tabulation kernels (spacy_dynoracle.tabulation,
docs/specs/dp_tabulation.md §7) at n = 30, 60, 100 words, on random float64 window-score tables
(the scores a model would precompute; their computation is not timed).

    flock /tmp/dynoracle-cpu.lock python3 benchmarks/tabulation_speed.py
    python3 benchmarks/tabulation_speed.py --lengths 30,60 --repeat 20
    python3 benchmarks/tabulation_speed.py --pipeline   # + words/s, greedy vs exact

Prints the median and min wall time per call (ms) of: Viterbi + backtrace (decode) and
inside + outside + arc marginals (marginals) for arc-hybrid (plain O(n^3) chart and the
context O(n^4) chart), arc-eager (plain chart, head flags of s0 in the windows; context
chart) and
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
    ap.add_argument("--pipeline", action="store_true",
                    help="also words/s of greedy vs exact decoding in dynoracle_parser")
    ap.add_argument("--docs", type=int, default=20, help="docs per length (--pipeline)")
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
            ec = [rng.normal(size=(2, N1, N1, N1)), rng.normal(size=(2, N1, N1, N1))] + e[2:]
            rows.append(("arc_eager  decode  context O(n^4)",
                         lambda: tab.eager_viterbi(*ec, context=True)))
            rows.append(("arc_eager  marginals context O(n^4)",
                         lambda: tab.eager_inside_outside(*ec, context=True)))
        if n <= args.standard_max:
            rows.append(("arc_standard decode O(n^5)", lambda: tab.standard_viterbi(*h)))
            rows.append(("arc_standard marginals O(n^5)", lambda: tab.standard_inside_outside(*h)))
        for name, fn in rows:
            slow = "context" in name or "standard" in name
            med, best = timeit(fn, max(3, args.repeat // 3) if slow else args.repeat)
            print(f"{n:>4} {name:<34} {med:>10.3f} {best:>9.3f}", flush=True)
    if args.pipeline:
        pipeline_speed(args)


def pipeline_speed(args):
    """Words/s of dynoracle_parser with WindowParserModel.v1: greedy (spaCy's C loop) vs
    exact_parse (window scores + Viterbi, and + marginals). Random weights: speed does not
    depend on training."""
    import random

    import spacy
    from spacy.tokens import Doc

    from spacy_dynoracle import exact_decoding as ed

    tok2vec = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None,
               "width": 96, "depth": 4, "embed_size": 2000, "window_size": 1,
               "maxout_pieces": 3, "subword_features": True}
    labels = ["nsubj", "obj", "det", "amod", "obl", "advmod", "case", "nmod"]
    rng = np.random.default_rng(0)
    print(f"\n{'system':<13} {'n':>4} {'greedy w/s':>11} {'exact w/s':>10} {'exact+marg w/s':>15}")
    for system in ("arc_hybrid", "arc_eager"):
        nlp = spacy.blank("xx")
        model = {"@architectures": "spacy_dynoracle.WindowParserModel.v1", "tok2vec": tok2vec,
                 "hidden_width": 64, "maxout_pieces": 2}
        parser = nlp.add_pipe("dynoracle_parser", config={
            "model": model, "transition_system": system, "min_action_freq": 1})
        parser.add_label("ROOT")
        for lab in labels:
            parser.add_label(lab)
        nlp.initialize()
        for name in ("lower", "upper"):
            layer = parser.model.get_ref(name)
            for p in ("W", "b"):
                layer.set_param(p, rng.normal(size=layer.get_param(p).shape).astype("f"))
        parser.model.attrs["unseen_classes"].clear()
        for n in [int(x) for x in args.lengths.split(",")]:
            words = [[f"w{random.Random(i * 1000 + j).randrange(500)}" for j in range(n)]
                     for i in range(args.docs)]
            docs = lambda: [Doc(nlp.vocab, words=w) for w in words]
            total = n * args.docs
            t_g = timeit(lambda: list(parser.pipe(docs(), batch_size=args.docs)), 3)[1]
            t_e = timeit(lambda: ed.exact_parse(parser, docs(), marginals=False), 3)[1]
            t_m = timeit(lambda: ed.exact_parse(parser, docs(), marginals=True), 3)[1]
            print(f"{system:<13} {n:>4} {total / t_g * 1000:>11.0f} {total / t_e * 1000:>10.0f} "
                  f"{total / t_m * 1000:>15.0f}", flush=True)


if __name__ == "__main__":
    main()
